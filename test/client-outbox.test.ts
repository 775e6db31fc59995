// dagent outbox and outbox retry against the built agent: off, a failing store (the state's
// last error, set-aside files), then a retry that ships (docs/outbox.md of the agent). The store
// is s3rver behind the strict check (test/helpers/s3.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ClientAgent, dagent, dagentOnTerminal, startClientAgent, tempHome, tokenProfile } from './helpers/dagent.ts';
import { agentWith } from './helpers/outbox.ts';
import { until } from './helpers/proc.ts';
import { startStore } from './helpers/s3.ts';
import { terminal } from './helpers/tmux.ts';

const test = suite('dagent outbox');
const session = `da-outbox-${process.pid}`;
const term = terminal(session, ['-J']);
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** dagent on a real terminal: what a person sees (a table rather than JSON); resolves with the screen once it ended. */
function onTerminal(home: string, args: string[]): Promise<string> {
  dagentOnTerminal(term, home, args);
  return term.until(/exit=\d+/);
}
test.after(() => {
  try {
    term.tmux('kill-session', '-t', session);
  } catch {
    /* already gone */
  }
});

test('off: the state says so; a retry exits 1 with the API text', async () => {
  const agent = await startClientAgent(false);
  const home = tempHome();
  try {
    await tokenProfile(agent, home);
    const shown = await onTerminal(home, ['outbox']);
    assert.match(shown, /^outbox: off \(no outbox in the config\)\nexit=0$/m);
    const json = await dagent(['outbox', '--json'], { home });
    assert.equal(JSON.parse(json.stdout), { enabled: false, state: 'off' });
    const retry = await dagent(['outbox', 'retry'], { home });
    assert.equal([retry.code, retry.stderr.trim()], [1, 'dagent: the outbox is off (no outbox in the config)']);
  } finally {
    await agent.cleanup();
  }
});

test('a failing store: pending and the last error shown; a retry once it is back ships the file', async () => {
  const store = await startStore();
  store.failWith = 503;
  const base = await agentWith(store, { 'recordings/dawn.flac': Buffer.from('dawn chorus') });
  const agent: ClientAgent = Object.assign(base, { clientUrl: base.url, pin: null });
  const home = tempHome();
  try {
    await tokenProfile(agent, home);
    const failing = await until('a failed attempt', async () => {
      const r = await dagent(['outbox', '--json'], { home });
      const o = JSON.parse(r.stdout);
      return o.lastError !== null && o;
    });
    assert.equal([failing.enabled, failing.pending], [true, { files: 1, bytes: 11 }]);
    const table = await onTerminal(home, ['outbox']);
    assert.match(table, /exit=0/);
    assert.match(table, /^state +(waiting|uploading)$/m);
    assert.match(table, /^pending +1 file, 11 B$/m);
    assert.match(table, new RegExp(`^last error +\\S+ ${literal(failing.lastError.text)}$`, 'm'));
    assert.match(table, new RegExp(`^target +s3 ${literal(store.endpoint)} \\(bucket \\S+\\)$`, 'm'));
    store.failWith = 0;
    const retry = await dagent(['outbox', 'retry'], { home });
    assert.is(retry.code, 0, retry.stderr);
    // 1 pending, or 0 when the backoff's own attempt (2 s, then 4 s) came first.
    assert.match(retry.stderr.trim(), /^outbox: next attempt started \((0 files|1 file) pending\)$/);
    await until('the file uploaded', async () => {
      const o = JSON.parse((await dagent(['outbox', '--json'], { home })).stdout);
      return o.uploaded.files === 1;
    });
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test.run();
