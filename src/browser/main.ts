// The agent's web interface: the login form, or the panels (status, recording, schedule,
// files, tokens) fed by the API with the token from sessionStorage. Bundled by build/web-page.mjs.
// It offers what the user's scopes allow (docs/api.md, "Roles"): a viewer sees no upload,
// no recording and no delete; the API refuses them anyway.
import { getJson, onUnauthorized, session } from './api.ts';
import { fill, h } from './dom.ts';
import { filesView } from './files.ts';
import { startLive } from './live.ts';
import { loginView } from './login.ts';
import { recordingView } from './recording.ts';
import { scheduleView } from './schedule.ts';
import { statusView } from './status.ts';
import { tokensView } from './tokens.ts';
import type { TlsInfo } from './types.ts';

const root = document.getElementById('app')!;
let teardown: (() => void) | undefined;

function showLogin(note?: string): void {
  teardown?.();
  teardown = undefined;
  const view = loginView(showDashboard, note);
  if (view.parentNode !== root) fill(root, view); // the page's own form stays where it is, focus and all
  performance.mark('login-form');
}

/**
 * A files panel for a credential without `files:write`: its writing controls (the upload,
 * and whatever carries class `needs-write`) are hidden, and a drop of files does nothing.
 */
function readOnly(panel: HTMLElement): void {
  panel.classList.add('read-only');
  const swallow = (event: Event) => {
    event.preventDefault(); // else the browser opens the dropped file in place of the page
    event.stopImmediatePropagation();
  };
  panel.addEventListener('dragover', swallow, { capture: true });
  panel.addEventListener('drop', swallow, { capture: true });
}

function showDashboard(): void {
  const me = session.user();
  if (!me) {
    // A token without the user it belongs to (a page from before roles): log in again.
    session.clear();
    showLogin();
    return;
  }
  const can = (scope: string) => me.scopes.includes(scope);
  const status = statusView();
  const recording = can('audio') ? recordingView() : undefined;
  // Every schedule route, reading and writing, needs `audio` (docs/schedule.md, "API").
  const schedule = can('audio') ? scheduleView() : undefined;
  const files = filesView();
  if (!can('files:write')) readOnly(files.el);
  const tokens = tokensView(me);
  const host = h('span', { class: 'host' });
  const who = h(
    'span',
    { class: 'who' },
    `${me.username} · `,
    h('span', { class: 'role' }, me.role),
    me.directory === null ? null : h('span', { class: 'dir' }, ` · ${me.directory}/`),
  );
  const logout = h('button', { type: 'button', class: 'secondary' }, 'Log out');
  logout.addEventListener('click', () => {
    session.clear();
    showLogin();
  });
  const title = h('h1', { tabindex: '-1' }, 'device-agent');
  fill(
    root,
    h('header', { class: 'bar' }, title, host, who, logout),
    h('main', { class: 'panels' }, status.el, recording?.el, schedule?.el, files.el, tokens.el),
  );
  const stop = startLive({
    status: (s) => {
      host.textContent = s.hostname;
      document.title = `${s.hostname} · device-agent`;
      status.update(s);
    },
    recording: recording ? recording.update : () => {},
    level: recording?.level,
    outbox: status.outboxChanged,
    schedule: schedule?.state,
  });
  teardown = () => {
    stop();
    recording?.destroy();
    status.destroy();
    document.title = 'device-agent';
  };
  title.focus(); // a screen reader announces the new page; Tab goes on from the top
  // A user limited to a directory starts there: paths stay relative to the base.
  void files.open(me.directory ?? '');
  void tokens.open();
  void schedule?.open();
  // An agent without HTTPS support answers 404: nothing to show.
  getJson<TlsInfo>('/api/v1/tls').then(status.showTls, () => {});
}

onUnauthorized(() => showLogin('Your session has ended. Please log in again.'));
if (session.token()) showDashboard();
else showLogin();
