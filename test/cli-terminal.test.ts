// docs/api.md#the-program: on a terminal the CLI prompts for the password twice without echo.
// A real terminal: tmux runs the CLI, send-keys types, capture-pane reads the screen.
import { terminal } from './helpers/tmux.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { agentCommand, prepareDir } from './helpers/agent.ts';

const tty = suite<{ dir: string }>('password prompt on a terminal');
tty.before(async (ctx) => {
  ctx.dir = (await prepareDir({ users: [] })).dir;
});
tty.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

const session = `da-test-${process.pid}`;
const { tmux, until } = terminal(session);

function run(dir: string, user: string): void {
  const { cmd, args } = agentCommand();
  const line = [cmd, ...args, 'user', 'add', user, '--config', join(dir, 'config.json')].map((a) => `'${a}'`).join(' ');
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
    assert.equal(
      users.map((u) => u.username),
      ['carol'],
    );
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
