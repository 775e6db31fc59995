// The agent's web interface: the login form, or the three panels (status, recording, files)
// fed by the API with the token from sessionStorage. Bundled by build/web-page.mjs.
import { getJson, onUnauthorized, session } from './api.ts';
import { fill, h } from './dom.ts';
import { filesView } from './files.ts';
import { startLive } from './live.ts';
import { loginView } from './login.ts';
import { recordingView } from './recording.ts';
import { statusView } from './status.ts';
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

function showDashboard(): void {
  const status = statusView();
  const recording = recordingView();
  const files = filesView();
  const host = h('span', { class: 'host' });
  const logout = h('button', { type: 'button', class: 'secondary' }, 'Log out');
  logout.addEventListener('click', () => {
    session.clear();
    showLogin();
  });
  const title = h('h1', { tabindex: '-1' }, 'device-agent');
  fill(root,
    h('header', { class: 'bar' }, title, host, logout),
    h('main', { class: 'panels' }, status.el, recording.el, files.el));
  const stop = startLive({
    status: (s) => {
      host.textContent = s.hostname;
      document.title = `${s.hostname} · device-agent`;
      status.update(s);
    },
    recording: recording.update,
    level: recording.level,
  });
  teardown = () => {
    stop();
    recording.destroy();
    status.destroy();
    document.title = 'device-agent';
  };
  title.focus(); // a screen reader announces the new page; Tab goes on from the top
  void files.open('');
  // An agent without HTTPS support answers 404: nothing to show.
  getJson<TlsInfo>('/api/v1/tls').then(status.showTls, () => {});
}

onUnauthorized(() => showLogin('Your session has ended. Please log in again.'));
if (session.token()) showDashboard();
else showLogin();
