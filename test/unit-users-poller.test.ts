// The users file poller (docs/api.md#login-tokens: a CLI change reaches the running agent): every change
// after load() is seen, including one made before the poller's first look, and stop() stops it;
// the pollers of one interval share one timer, which a wakeup for something else puts off.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserStore, newUser, writeUsers } from '../src/auth/users.ts';
import { pollersAwake, pollStamp } from '../src/util/file-stamp.ts';
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

t('the pollers of one interval share one timer: both look in the same turn; each stops alone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'da-poller-'));
  const a = join(dir, 'a.json');
  const b = join(dir, 'b.json');
  writeUsers(a, []);
  const stampsA: string[] = [];
  const stampsB: string[] = [];
  let aThisTurn = false;
  let together = 0;
  const pa = pollStamp(
    () => a,
    40,
    (stamp) => {
      stampsA.push(stamp);
      aThisTurn = true;
      // Node runs the microtasks between two timers' callbacks: this stays true only for a poll
      // that runs in the same callback as this one.
      queueMicrotask(() => {
        aThisTurn = false;
      });
    },
  );
  await sleep(15);
  const pb = pollStamp(
    () => b,
    40,
    (stamp) => {
      stampsB.push(stamp);
      if (aThisTurn) together++;
    },
  );
  try {
    assert.ok(await eventually(() => stampsB.length >= 3, 2000), 'b was not polled');
    assert.is(together, stampsB.length, 'b was polled on a timer of its own');
    // A missing file has its errno as its stamp; one that appears is a change.
    assert.is(stampsB[0], 'ENOENT');
    writeUsers(b, []);
    assert.ok(await eventually(() => stampsB.at(-1) !== 'ENOENT', 2000), 'b appearing was not seen');
    pa.stop();
    const seenA = stampsA.length;
    const seenB = stampsB.length;
    assert.ok(await eventually(() => stampsB.length >= seenB + 2, 2000), 'stopping a stopped b too');
    assert.is(stampsA.length, seenA, 'a polled after its stop()');
    pb.stop();
    const lastB = stampsB.length;
    await sleep(150);
    assert.is(stampsB.length, lastB, 'b polled after its stop()');
  } finally {
    pa.stop();
    pb.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

t('while the agent is woken often anyway, the pollers look then (from half their interval on) and their timer never fires', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'da-poller-'));
  const file = join(dir, 'users.json');
  writeUsers(file, []);
  let awake = false;
  const looks: boolean[] = [];
  const poller = pollStamp(
    () => file,
    2000,
    () => {
      looks.push(awake);
    },
  );
  try {
    // Woken every 50 ms (a capture's chunks come every 125-200 ms) for 3.2 s.
    for (const until = Date.now() + 3200; Date.now() < until; ) {
      awake = true;
      pollersAwake();
      awake = false;
      await sleep(50);
    }
    // From 1 s after the last look: about 3 looks, all of them on a wakeup, none on the timer.
    assert.ok(looks.length >= 2 && looks.length <= 4, String(looks.length));
    assert.equal(
      looks,
      looks.map(() => true),
      'the timer fired',
    );
  } finally {
    poller.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

t.run();
