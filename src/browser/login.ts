// The login form (docs/api.md#web-interface: textboxes "Username" and "Password", button "Log in"); a
// refused login shows the API's own text. Its markup is in index.html (painted before any
// script runs); this wires a fresh copy of it each time it is shown.
import { login } from './api.ts';

// Copied as the script starts (the script is deferred: the document is parsed), before anyone types.
const inPage = document.querySelector<HTMLElement>('main.login-page');
const pristine = inPage?.cloneNode(true) as HTMLElement;
let used = false;

/** The page's own form the first time (what was typed into it is kept), a fresh copy after. */
function formFromPage(): HTMLElement {
  if (inPage && !used && inPage.isConnected) {
    used = true;
    return inPage;
  }
  return pristine.cloneNode(true) as HTMLElement;
}

export function loginView(done: () => void, note?: string): HTMLElement {
  const view = formFromPage();
  const form = view.querySelector('form')!;
  const username = form.querySelector<HTMLInputElement>('[name=username]')!;
  const password = form.querySelector<HTMLInputElement>('[name=password]')!;
  const button = form.querySelector('button')!;
  const error = form.querySelector('.error')!;
  form.querySelector('.note')!.textContent = note ?? '';
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
  queueMicrotask(() => {
    if (!view.contains(document.activeElement)) username.focus();
  });
  return view;
}
