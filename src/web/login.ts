// The login form (CONTRACT §12: textboxes "Username" and "Password", button "Log in"); a
// refused login shows the API's own text.
import { login } from './api.ts';
import { h } from './dom.ts';

export function loginView(done: () => void, note?: string): HTMLElement {
  const username = h('input', { id: 'login-username', name: 'username', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false', autofocus: true });
  const password = h('input', { id: 'login-password', name: 'password', type: 'password', autocomplete: 'current-password' });
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit' }, 'Log in');
  const form = h('form', { class: 'login card', novalidate: true },
    h('h1', {}, 'device-agent'),
    note ? h('p', { class: 'note', role: 'status' }, note) : null,
    h('label', { for: username.id }, 'Username'), username,
    h('label', { for: password.id }, 'Password'), password,
    button, error);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    button.disabled = true;
    error.textContent = '';
    login(username.value, password.value).then(done, (err: Error) => {
      error.textContent = err.message;
      button.disabled = false;
      password.select();
    });
  });
  queueMicrotask(() => username.focus());
  return h('main', { class: 'login-page' }, form);
}
