// docs/api.md#the-program: on a terminal the CLI prompts for the password twice without echo.
// A real terminal: tmux runs the CLI, send-keys types, capture-pane reads the screen.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { agentCommand, prepareDir } from './helpers/agent.ts';

const tty = suite<{ dir: string }>('password prompt on a terminal');
tty.before(async (ctx) => { ctx.dir = (await prepareDir({ users: [] })).dir; });
tty.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

const session = `da-test-${process.pid}`;
// A server of its own (-L): another tmux user on the machine cannot end it under the test.
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', `da-test-${process.pid}`, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', session);

async function until(what: RegExp, ms = 15_000): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const s = screen();
    if (what.test(s)) return s;
    if (Date.now() > end) throw new Error(`screen never showed ${what}:\n${s}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function run(dir: string, user: string): void {
  const { cmd, args } = agentCommand();
  const line = [cmd, ...args, 'user', 'add', user, '--config', join(dir, 'config.json')]
    .map((a) => `'${a}'`).join(' ');
  // The shell stays after the CLI so its last words can be read; exit code printed too.
  tmux('new-session', '-d', '-s', session, '-x', '200', '-y', '20', `${line}; echo "exit=$?"; sleep 30`);
}

/** Answers both prompts as a person would and returns the screen once the CLI exited. */
async function typeTwice(first: string, second: string): Promise<string> {
  await until(/New password:\s*$/m);
  tmux('send-keys', '-t', session, first, 'Enter');
  await until(/Repeat password:\s*$/m);
  tmux('send-keys', '-t', session, second, 'Enter');
  return until(/exit=\d+/);
}

tty('asks twice without echo and stores the user', async ({ dir }) => {
  run(dir, 'carol');
  try {
    const s = await typeTwice('typed-secret-1', 'typed-secret-1');
    assert.match(s, /exit=0/);
    assert.not.ok(s.includes('typed-secret-1'), `the password was echoed:\n${s}`);
    const users = JSON.parse(readFileSync(join(dir, 'users.json'), 'utf8')).users as Array<{ username: string }>;
    assert.equal(users.map((u) => u.username), ['carol']);
  } finally {
    tmux('kill-session', '-t', session);
  }
});

tty('refuses two passwords that differ', async ({ dir }) => {
  run(dir, 'dave');
  try {
    const s = await typeTwice('first-secret-1', 'other-secret-2');
    assert.match(s, /passwords do not match/);
    assert.match(s, /exit=1/);
    const users = JSON.parse(readFileSync(join(dir, 'users.json'), 'utf8')).users as Array<{ username: string }>;
    assert.not.ok(users.some((u) => u.username === 'dave'));
  } finally {
    tmux('kill-session', '-t', session);
  }
});

tty.run();
