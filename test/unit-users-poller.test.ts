// The users file poller (docs/api.md#login-tokens: a CLI change reaches the running agent): every change
// after load() is seen, including one made before the poller's first look, and stop() stops it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserStore, newUser, writeUsers } from '../src/auth/users.ts';
import { DUMMY_HASH } from '../src/auth/passwords.ts';
import { eventually } from './helpers/proc.ts';
import { collectLog } from './helpers/log.ts';

const t = suite('users file poller');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t('a change between load() and the first poll, later changes, and none after stop()', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'da-poller-'));
  const file = join(dir, 'users.json');
  const lines: string[] = [];
  const store = new UserStore(file, collectLog(lines));
  try {
    writeUsers(file, [newUser('admin', DUMMY_HASH)]);
    assert.is(store.load(), 1);
    // Removed before the poller has looked even once (the CLI racing the agent's start).
    writeUsers(file, []);
    store.watch(50);
    assert.ok(await eventually(() => store.findByName('admin') === undefined, 2000), 'the removal was not seen');
    assert.equal(lines, [`<6>users file ${file} reloaded: 0 user(s)`]);
    // Nothing changed: no reload.
    await sleep(200);
    assert.is(lines.length, 1, lines.join('\n'));
    writeUsers(file, [newUser('bob', DUMMY_HASH)]);
    assert.ok(await eventually(() => store.findByName('bob') !== undefined, 2000), 'the addition was not seen');
    store.stop();
    writeUsers(file, []);
    await sleep(250);
    assert.ok(store.findByName('bob'), 'polled after stop()');
  } finally {
    store.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

t.run();
