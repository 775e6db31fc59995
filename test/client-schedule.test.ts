// dagent schedule show|set|preview against the built agent: --json is the API's answer, a
// wrong document is the API's 400 text (exit 1), a preview of a document not yet stored.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dagent, startClientAgent, tempHome, tokenProfile } from './helpers/dagent.ts';

const test = suite('dagent schedule');

const DOC = { timeZone: 'Europe/London', enabled: false, windows: [{ start: '01:30', end: '03:00' }] };

test('set, show and preview through the API; a wrong document exits 1 with the API text', async () => {
  const agent = await startClientAgent(false);
  const home = tempHome();
  try {
    await tokenProfile(agent, home);
    const run = (args: string[], input?: string) => dagent(args, { home, input });
    const none = await run(['schedule', 'show', '--json']);
    assert.is(none.code, 0, none.stderr);
    assert.equal(JSON.parse(none.stdout).schedule, null);
    const set = await run(['schedule', 'set', '-', '--json'], JSON.stringify(DOC));
    assert.is(set.code, 0, set.stderr);
    const stored = JSON.parse(set.stdout);
    assert.equal([stored.schedule.recording.segmentSeconds, stored.state.state, stored.state.reason], [300, 'off', 'disabled']);
    const show = await run(['schedule', 'show']); // JSON in a pipe, as status and ls
    assert.equal(JSON.parse(show.stdout).state.reason, 'disabled');
    const preview = await run(['schedule', 'preview', '--from', '2024-03-31', '--days', '1', '--json']);
    assert.equal(JSON.parse(preview.stdout).windows[0].start, '2024-03-31T02:00:00+01:00');
    const proposed = await run(['schedule', 'preview', '--file', '-', '--from', '2024-10-27', '--days', '1'], JSON.stringify(DOC));
    assert.match(proposed.stdout, /^2024-10-27T01:30:00\+01:00 to 2024-10-27T03:00:00Z$/m);
    const bad = await run(['schedule', 'set', '-'], JSON.stringify({ windows: [{ start: '10:00', end: '10:00' }] }));
    assert.equal([bad.code, bad.stderr.trim()], [1, 'dagent: windows[0].end: must differ from start']);
    const clear = await run(['schedule', 'clear']);
    assert.equal([clear.code, clear.stderr.trim()], [0, 'schedule cleared']);
    assert.equal(JSON.parse((await run(['schedule', 'show', '--json'])).stdout).schedule, null);
    const again = await run(['schedule', 'clear']); // nothing stored: the API's 204 all the same
    assert.equal([again.code, again.stderr.trim()], [0, 'schedule cleared']);
  } finally {
    await agent.cleanup();
  }
});

test('set - with --hosts: the document read from standard input once goes to every host', async () => {
  const agent = await startClientAgent(false);
  const home = tempHome();
  try {
    // Two profiles of one agent are two hosts to dagent.
    await tokenProfile(agent, home, 'a');
    await tokenProfile(agent, home, 'b');
    writeFileSync(join(home, 'hosts.txt'), 'a\nb\n');
    const r = await dagent(['schedule', 'set', '-', '--hosts', 'hosts.txt', '-j', '1'], { home, input: JSON.stringify(DOC) });
    assert.is(r.code, 0, r.stdout + r.stderr);
    const lines = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    assert.equal(
      lines.map((l) => [l.host, l.ok, l.result?.state.reason]),
      [
        ['a', true, 'disabled'],
        ['b', true, 'disabled'],
      ],
    );
  } finally {
    await agent.cleanup();
  }
});

test.run();
