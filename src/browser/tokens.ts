// "Tokens": the API tokens of the person logged in (an admin's: everyone's), made and
// revoked here (docs/api.md, "API tokens"). A new token's text is shown this once, with a
// copy button: the agent keeps only its hash, so nobody can show it again.
import { deleteJson, getJson, postJson } from './api.ts';
import { fill, h, uid } from './dom.ts';
import { when } from './format.ts';
import { isRole, ROLE_SCOPES } from '../auth/scopes.ts'; // pure: the bundle takes the table alone
import type { Me, TokenRecord } from './types.ts';

interface UserEntry {
  username: string;
  role: string;
  directory: string | null;
}

const EXPIRY: Array<[string, string]> = [
  ['30', '30 days'],
  ['90', '90 days'],
  ['365', '1 year'],
  ['never', 'Never'],
];

export function tokensView(me: Me) {
  const admin = me.scopes.includes('admin');
  const rows = h('tbody', {});
  const error = h('p', { role: 'alert', class: 'error' });
  const made = h('div', { class: 'new-token', hidden: true });

  const name = h('input', {
    id: uid('token-name'),
    name: 'name',
    maxlength: '64',
    autocomplete: 'off',
    spellcheck: 'false',
    autocapitalize: 'none',
  });
  const boxes = me.scopes.map((scope) => {
    const box = h('input', { type: 'checkbox', value: scope, checked: true });
    return { box, el: h('label', { class: 'check' }, box, scope) };
  });
  const directory = h('input', {
    id: uid('token-dir'),
    name: 'directory',
    value: me.directory ?? '',
    placeholder: 'all',
    spellcheck: 'false',
    autocapitalize: 'none',
  });
  const expiry = h(
    'select',
    { id: uid('token-expiry') },
    ...EXPIRY.map(([v, text]) => h('option', { value: v, selected: v === '365' }, text)),
  );
  const owner = admin ? h('select', { id: uid('token-user') }, h('option', { value: me.username }, me.username)) : null;
  const create = h('button', { type: 'submit' }, 'Create token');
  const field = (label: string, control: HTMLElement) => h('div', { class: 'field' }, h('label', { for: control.id }, label), control);
  const form = h(
    'form',
    { class: 'token-form', novalidate: true },
    field('Token name', name),
    h('fieldset', { class: 'scopes' }, h('legend', {}, 'Scopes'), ...boxes.map((b) => b.el)),
    field('Directory', directory),
    field('Expires', expiry),
    owner && field('For user', owner),
    h('div', { class: 'buttons' }, create),
  );

  const headings = ['Name', ...(admin ? ['User'] : []), 'Scopes', 'Directory', 'Expires', 'Last used', ''];
  const el = h(
    'section',
    { 'aria-labelledby': 'h-tokens', class: 'card tokens' },
    h('h2', { id: 'h-tokens' }, 'Tokens'),
    h(
      'p',
      { class: 'note' },
      admin
        ? 'API tokens let scripts call the agent without a password. As an admin you see every user\u2019s.'
        : 'API tokens let scripts call the agent without a password, with at most your rights.',
    ),
    // Wider than a phone: it scrolls, so it takes the focus to scroll by keyboard.
    h(
      'div',
      { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'API tokens' },
      h(
        'table',
        {},
        h('caption', { class: 'visually-hidden' }, admin ? 'Every API token' : 'Your API tokens'),
        h(
          'thead',
          {},
          h('tr', {}, ...headings.map((t) => h('th', { scope: 'col' }, t || h('span', { class: 'visually-hidden' }, 'Actions')))),
        ),
        rows,
      ),
    ),
    made,
    h('h3', {}, 'New token'),
    form,
    error,
  );

  const row = (t: TokenRecord) => {
    const label = admin && t.username !== me.username ? `Revoke ${t.name} of ${t.username}` : `Revoke ${t.name}`;
    const revoke = h('button', { type: 'button', class: 'secondary', 'aria-label': label }, 'Revoke');
    revoke.addEventListener('click', () => {
      error.textContent = '';
      revoke.disabled = true;
      deleteJson(`/api/v1/tokens/${encodeURIComponent(t.id)}`).then(refresh, (err: Error) => {
        error.textContent = err.message;
        revoke.disabled = false;
      });
    });
    return h(
      'tr',
      {},
      h('td', {}, t.name),
      admin && h('td', {}, t.username),
      h('td', {}, t.scopes.join(', ')),
      h('td', {}, t.directory ?? 'all'),
      h('td', {}, t.expiresAt === null ? 'never' : when(t.expiresAt, true)),
      h('td', {}, t.lastUsedAt === null ? 'never' : `${when(t.lastUsedAt, true)} from ${t.lastUsedFrom ?? '?'}`),
      h('td', {}, revoke),
    );
  };

  async function refresh(): Promise<void> {
    try {
      const { tokens } = await getJson<{ tokens: TokenRecord[] }>('/api/v1/tokens');
      fill(
        rows,
        ...(tokens.length > 0
          ? tokens.map(row)
          : [h('tr', {}, h('td', { colspan: String(headings.length), class: 'empty' }, 'No tokens yet.'))]),
      );
    } catch (err) {
      error.textContent = (err as Error).message;
    }
  }

  /** The text, once: selectable, copyable, and gone when dismissed (or at the next one). */
  const showOnce = (t: TokenRecord & { token: string }) => {
    const text = h('input', { id: uid('token-text'), readonly: true, value: t.token, spellcheck: 'false', class: 'token-text' });
    const copy = h('button', { type: 'button' }, 'Copy');
    const copied = h('span', { role: 'status', class: 'note' });
    copy.addEventListener('click', () => {
      text.select();
      const done = () => {
        copied.textContent = 'Copied.';
      };
      // The Clipboard API needs a secure context (HTTPS or localhost); else the selection's copy.
      if (navigator.clipboard)
        navigator.clipboard.writeText(t.token).then(done, () => {
          if (document.execCommand('copy')) done();
        });
      else if (document.execCommand('copy')) done();
    });
    const dismiss = h('button', { type: 'button', class: 'secondary' }, 'Done');
    dismiss.addEventListener('click', () => {
      fill(made);
      made.hidden = true;
      name.focus();
    });
    fill(
      made,
      h('p', {}, h('strong', {}, `Token ${t.name} created. `), 'Copy it now: it will not be shown again. The agent keeps only its hash.'),
      h('div', { class: 'token-copy' }, h('label', { for: text.id }, 'New token'), text, copy, dismiss, copied),
    );
    made.hidden = false;
    text.focus();
    text.select();
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    error.textContent = '';
    const body: Record<string, unknown> = {
      name: name.value.trim(),
      scopes: boxes.filter((b) => b.box.checked).map((b) => b.box.value),
      expiresInDays: expiry.value === 'never' ? null : Number(expiry.value),
    };
    if (directory.value.trim() !== '') body.directory = directory.value.trim();
    if (owner && owner.value !== me.username) body.username = owner.value;
    create.disabled = true;
    postJson<TokenRecord & { token: string }>('/api/v1/tokens', body)
      .then(
        (t) => {
          showOnce(t);
          name.value = '';
          return refresh();
        },
        (err: Error) => {
          error.textContent = err.message;
        },
      )
      .finally(() => {
        create.disabled = false;
      });
  });

  const open = async () => {
    await refresh();
    if (!owner) return;
    // An admin may make a token for anyone (the user list needs `admin`, which they have).
    let users: UserEntry[];
    try {
      ({ users } = await getJson<{ users: UserEntry[] }>('/api/v1/users'));
    } catch (err) {
      // A 401 is back at the login form already; anything else is said here.
      if ((err as { status?: number }).status !== 401) error.textContent = (err as Error).message;
      return;
    }
    for (const u of users) if (u.username !== me.username) owner.append(h('option', { value: u.username }, u.username));
    // Another user's token has at most that user's rights: offer only those.
    owner.addEventListener('change', () => {
      const u = users.find((x) => x.username === owner.value);
      const allowed = u && isRole(u.role) ? ROLE_SCOPES[u.role] : new Set(me.scopes);
      for (const b of boxes) {
        b.box.disabled = !allowed.has(b.box.value as never);
        b.box.checked = !b.box.disabled;
      }
      directory.value = u?.directory ?? '';
    });
  };

  return { el, open };
}
