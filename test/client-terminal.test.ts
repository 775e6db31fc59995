// dagent on a real terminal (tmux runs it; capture-pane reads the screen): the progress
// bar of get and put, tables instead of JSON, and the login prompts (the trust question,
// then the password without echo).
import { terminal } from './helpers/tmux.ts';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dagentOnTerminal, startClientAgent, tempHome, tokenProfile, type ClientAgent } from './helpers/dagent.ts';

type Ctx = { agent: ClientAgent; home: string };
const tty = suite<Ctx>('dagent on a terminal');
const session = `da-dagent-${process.pid}`;

const term = terminal(session, ['-J']);
const start = (home: string, args: string[]) => dagentOnTerminal(term, home, args);
const { tmux, until } = term;

tty.before(async (ctx) => {
  ctx.agent = await startClientAgent(true, { config: { maxFileBytes: 64 * 1024 * 1024 } });
  ctx.home = tempHome();
  await tokenProfile(ctx.agent, ctx.home);
});
tty.after(async (ctx) => {
  try {
    tmux('kill-session', '-t', session);
  } catch {
    /* already gone */
  }
  await ctx.agent?.cleanup();
  if (ctx.home) rmSync(ctx.home, { recursive: true, force: true });
});

tty('get and put draw a progress bar (bytes, rate) on standard error, left at 100 %', async ({ agent, home }) => {
  const data = randomBytes(20 * 1024 * 1024);
  writeFileSync(join(agent.baseDir, 'big.bin'), data);
  start(home, ['get', 'big.bin']);
  let s = await until(/exit=\d+/);
  assert.match(s, /exit=0/);
  assert.match(s, /^big\.bin {2}\[#{30}\] 100% {2}21\.0 MB \/ 21\.0 MB {2}[\d.]+ [kMG]?B\/s {2}\d+ s$/m, s);
  assert.match(s, /^saved big\.bin \(21\.0 MB\)$/m);
  assert.ok(readFileSync(join(home, 'big.bin')).equals(data));

  start(home, ['put', 'big.bin', 'copy.bin']);
  s = await until(/exit=\d+/);
  assert.match(s, /exit=0/);
  assert.match(s, /^big\.bin {2}\[#{30}\] 100% {2}21\.0 MB \/ 21\.0 MB {2}[\d.]+ [kMG]?B\/s {2}\d+ s$/m, s);
  assert.ok(readFileSync(join(agent.baseDir, 'copy.bin')).equals(data));
});

tty('status and ls print tables for people, not JSON', async ({ agent, home }) => {
  start(home, ['status']);
  let s = await until(/exit=\d+/);
  assert.match(s, /exit=0/);
  assert.match(s, /^hostname +\S+$/m);
  assert.match(s, /^recording +idle$/m);
  writeFileSync(join(agent.baseDir, 'note.txt'), 'hello');
  start(home, ['ls']);
  s = await until(/exit=\d+/);
  assert.match(s, /^NAME +SIZE +MODIFIED$/m);
  assert.match(s, /^note\.txt +5 B +\d{4}-\d\d-\d\dT/m);
});

tty('login asks about the key, then the password without echo; a wrong one is exit 3', async ({ agent, home }) => {
  start(home, ['login', agent.clientUrl, '--user', 'admin', '--profile', 'typed']);
  await until(/Trust this key for this device\? \[y\/N\] $/m);
  tmux('send-keys', '-t', session, 'y', 'Enter');
  await until(/Password for admin: $/m);
  tmux('send-keys', '-t', session, 'typed-wrong-secret', 'Enter');
  const s = await until(/exit=\d+/);
  assert.match(s, /exit=3/);
  assert.match(s, /^dagent: invalid username or password$/m);
  assert.not.ok(s.includes('typed-wrong-secret'), `the password was echoed:\n${s}`);
});

tty('login: "n" to the key question refuses (4) and stores nothing', async ({ agent, home }) => {
  start(home, ['login', agent.clientUrl, '--user', 'admin', '--profile', 'refused']);
  await until(/Trust this key for this device\? \[y\/N\] $/m);
  tmux('send-keys', '-t', session, 'n', 'Enter');
  const s = await until(/exit=\d+/);
  assert.match(s, /exit=4/);
  assert.match(s, new RegExp(`^dagent: not trusted: ${agent.clientUrl.replace(/\./g, '\\.')} \\(to trust it without asking: `, 'm'));
  assert.not.ok(s.includes('Password for'), s);
  const profiles = JSON.parse(readFileSync(join(home, 'dagent/profiles.json'), 'utf8')).profiles;
  assert.not.ok('refused' in profiles);
});

tty.run();
