// Recording on a schedule (docs/schedule.md) against PulseAudio's virtual microphone playing
// pink noise: segments named from their first sample's UTC time, exact lengths by sample
// count, continuous across boundaries (their PCM, joined, is a live stream's byte for
// byte), the clock gate, SIGTERM, kill -9 and a restart inside a window, a manual
// recording beside the schedule, the API's answers and refusals.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { ADMIN, prepareDir, spawnAgent, startAgent, type TestAgent } from './helpers/agent.ts';
import { listenLive, reloadAudio, scheduledSegments, segmentTime, soxi, startRecording, waitForEnd } from './helpers/audio.ts';
import { bearer } from './helpers/http.ts';
import { eventually } from './helpers/proc.ts';
import { noisySuite, type VirtualMic } from './helpers/pulse.ts';
import { segmentName } from '../src/schedule/segments.ts';

const SCHEDULE = '/api/v1/schedule';

/** Polls an asynchronous check until it holds or `ms` pass. */
async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}
const pad = (n: number) => String(n).padStart(2, '0');
const hhmm = (ms: number) => `${pad(new Date(ms).getUTCHours())}:${pad(new Date(ms).getUTCMinutes())}`;

/** A window under way now, ending `minutes` from now (UTC wall times). */
const windowNow = (minutes = 10) => ({ start: hhmm(Date.now() - 60_000), end: hhmm(Date.now() + minutes * 60_000) });

const doc = (windows: unknown[], recording: Record<string, unknown> = {}) => ({
  timeZone: 'UTC',
  recording: { fileExtension: 'flac', segmentSeconds: 10, ...recording },
  windows,
});

async function api(agent: TestAgent, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${agent.url}${path}`, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const segments = (agent: TestAgent) => scheduledSegments(agent.baseDir);

/**
 * Stores a window under way with a duty cycle of 6 s on, 4 s off from its start (a whole
 * minute, so every period starts on a whole second). Returns the start of the first period
 * that begins at least 3 s later: the agent starts each period's capture ahead of it.
 */
async function putDutyWindow(agent: TestAgent, token: string): Promise<number> {
  const t = Date.now();
  const start = Math.floor((t - 60_000) / 60_000) * 60_000;
  const window = { start: hhmm(t - 60_000), end: hhmm(t + 10 * 60_000), duty: { onSeconds: 6, offSeconds: 4 } };
  assert.is((await api(agent, token, 'PUT', SCHEDULE, doc([window]))).status, 200);
  return start + Math.ceil((Date.now() + 3000 - start) / 10_000) * 10_000;
}

/** A clock.syncedFile that exists: the clock counts as synchronized whatever this machine's is. */
const SYNCED = join('/tmp', `da-synced-${process.pid}`);

const rec = noisySuite('recording on a schedule', SYNCED);

async function withAgent(mic: VirtualMic, config: Record<string, unknown>, body: (agent: TestAgent, token: string) => Promise<void>) {
  writeFileSync(SYNCED, '');
  const agent = await startAgent({
    env: mic.env,
    config: { audio: { device: 'pulse', minFreeBytes: 0 }, clock: { syncedFile: SYNCED }, ...config },
  });
  try {
    await body(agent, await agent.login());
  } finally {
    await agent.cleanup();
  }
}

rec('no schedule: GET answers null and off, the preview 404; a wrong document is 400 naming the field', async ({ mic }) => {
  await withAgent(mic, {}, async (agent, token) => {
    const none = await api(agent, token, 'GET', SCHEDULE);
    assert.is(none.status, 200);
    assert.equal(none.json, {
      schedule: null,
      state: { state: 'off', reason: 'no schedule', window: null, next: null, lastSegment: null },
    });
    const preview = await api(agent, token, 'GET', `${SCHEDULE}/preview`);
    assert.equal([preview.status, preview.json], [404, { error: 'no schedule' }]);
    const bad = await api(agent, token, 'PUT', SCHEDULE, {
      windows: [
        { start: '10:00', end: '11:00' },
        { start: 'noon', end: '13:00' },
      ],
    });
    assert.equal([bad.status, bad.json], [400, { error: 'windows[1].start: must be HH:MM or a sun event with an offset' }]);
    const sun = await api(agent, token, 'PUT', SCHEDULE, { windows: [{ start: 'sunrise', end: '13:00' }] });
    assert.equal([sun.status, sun.json], [400, { error: 'location: must be set for the sun event in windows[0].start' }]);
    assert.ok(!existsSync(join(agent.dir, 'schedule.json')), 'nothing stored');
    const proposed = await api(agent, token, 'POST', `${SCHEDULE}/preview`, {
      schedule: { timeZone: 'Europe/London', windows: [{ start: '01:30', end: '03:00' }] },
      from: '2024-03-31',
      days: 1,
    });
    assert.equal(proposed.json, {
      windows: [
        {
          start: '2024-03-31T02:00:00+01:00',
          end: '2024-03-31T03:00:00+01:00',
          on: [['2024-03-31T02:00:00+01:00', '2024-03-31T03:00:00+01:00']],
        },
      ],
      skipped: [],
    });
    const days = await api(agent, token, 'POST', `${SCHEDULE}/preview`, { schedule: { windows: [] }, days: 367 });
    assert.equal([days.status, days.json], [400, { error: 'days must be an integer from 1 to 366' }]);
    const extra = await api(agent, token, 'POST', `${SCHEDULE}/preview`, { schedule: { windows: [] }, when: 'today' });
    assert.equal([extra.status, extra.json], [400, { error: 'when: is not a field of a preview' }]);
    const list = await api(agent, token, 'POST', `${SCHEDULE}/preview`, { schedule: [] });
    assert.equal([list.status, list.json], [400, { error: 'schedule: must be a JSON object' }]);
    const from = await api(agent, token, 'POST', `${SCHEDULE}/preview`, { schedule: { windows: [] }, from: '31.03.2024' });
    assert.equal([from.status, from.json], [400, { error: 'from must be a date YYYY-MM-DD' }]);
    // Each of those texts is in the document's 400 of the operation.
    const openapi = (await (await fetch(`${agent.url}/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content: { 'application/json': { examples: object } } }> }>>;
    };
    const examples = Object.values(openapi.paths[`${SCHEDULE}/preview`]!.post!.responses['400']!.content['application/json'].examples);
    const texts = examples.map((e) => (e as { value: { error: string } }).value.error);
    for (const text of [
      '<key>: is not a field of a preview',
      'schedule: must be a JSON object',
      'from must be a date YYYY-MM-DD',
      'days must be an integer from 1 to 366',
    ])
      assert.ok(texts.includes(text), `${text} in ${JSON.stringify(texts)}`);
  });
});

rec('a window under way records gapless segments named from their first sample; SIGTERM keeps the last one complete', async ({ mic }) => {
  await withAgent(mic, {}, async (agent, token) => {
    const live = await listenLive(agent, token, 'format=wav');
    const put = await api(agent, token, 'PUT', SCHEDULE, doc([windowNow()]));
    assert.is(put.status, 200);
    assert.is(put.json.schedule.recording.segmentSeconds, 10);
    assert.is(put.json.schedule.windows[0].days.length, 7);
    assert.ok(
      await until(async () => (await api(agent, token, 'GET', SCHEDULE)).json.state.state === 'recording', 5000),
      'recording within 5 s',
    );
    assert.ok(await eventually(() => segments(agent).files.length >= 2, 40_000), 'two segments stored');
    const state = (await api(agent, token, 'GET', SCHEDULE)).json.state;
    assert.is(state.reason, null);
    assert.ok(state.window.start.endsWith('Z'));
    assert.ok(state.lastSegment.file.startsWith('recordings/scheduled/'));
    const { code } = await agent.stop('SIGTERM');
    assert.is(code, 0);
    live.close();
    const { files, temps } = segments(agent);
    assert.equal(temps, [], 'no temp file left');
    assert.ok(files.length >= 3, `segments: ${files.join(', ')}`);
    for (const file of files) {
      const name = file.split('/').slice(-2).join('/');
      assert.match(name, /^\d{4}-\d{2}-\d{2}\/\d{8}_\d{6}\.flac$/);
      assert.is(name.slice(0, 10).replace(/-/g, ''), name.slice(11, 19), 'the directory is the UTC date of the name');
    }
    // Complete segments hold exactly segmentSeconds × rate samples; the last (cut by SIGTERM) fewer, and playable.
    const samples = files.map((f) => Number(execFileSync('soxi', ['-s', f]).toString().trim()));
    for (const n of samples.slice(0, -1)) assert.is(n, 480_000);
    assert.ok(samples.at(-1)! > 0 && samples.at(-1)! <= 480_000);
    // Consecutive names are segmentSeconds apart (within the second the name rounds to).
    const at = files.map(segmentTime);
    for (let i = 1; i < at.length; i++) assert.ok(Math.abs(at[i]! - at[i - 1]! - 10_000) <= 1000, `names ${files[i - 1]} ${files[i]}`);
    // Gapless: the joined PCM of all segments is the live stream's, byte for byte.
    const joined = Buffer.concat(files.map((f) => execFileSync('sox', [f, '-t', 'raw', '-'], { maxBuffer: 1 << 26 })));
    const stream = live.body().subarray(44);
    const start = stream.indexOf(joined.subarray(0, 4096));
    assert.ok(start >= 0, 'the first segment begins inside the live stream');
    assert.ok(
      joined.subarray(0, 4096).some((b) => b !== 0),
      'noise, not silence',
    );
    const overlap = Math.min(joined.length, stream.length - start);
    assert.ok(overlap > 2 * 960_000, `the live stream covers two segments (${overlap} bytes)`);
    assert.ok(stream.subarray(start, start + overlap).equals(joined.subarray(0, overlap)), 'no sample lost or repeated');
    const audit = agent.output();
    assert.match(audit, /"event":"schedule.set"/);
    assert.match(audit, /"event":"recording.end","outcome":"ok","user":null,"credential":"schedule"/);
  });
});

rec('each period of a duty cycle records from its start: named from it, holding its "on" time in samples', async ({ mic }) => {
  await withAgent(mic, {}, async (agent, token) => {
    const first = await putDutyWindow(agent, token);
    const nameOf = (ms: number) => {
      const { day, base } = segmentName(ms);
      return `${day}/${base}.flac`;
    };
    const periods = [first, first + 10_000].map(nameOf);
    assert.ok(
      await eventually(() => segments(agent).files.some((f) => f.endsWith(periods[1]!)), 45_000),
      `segments named ${periods.join(', ')}: ${segments(agent).files.join(', ')}`,
    );
    for (const name of periods) {
      const file = segments(agent).files.find((f) => f.endsWith(name));
      assert.ok(file, `a segment named from its period's start, ${name}: ${segments(agent).files.join(', ')}`);
      // 6 s × 48,000: the first sample is the period's, the last its end's (timed by the chunks' arrival).
      const samples = Number(execFileSync('soxi', ['-s', file]).toString().trim());
      assert.ok(Math.abs(samples - 288_000) <= 2_880, `${name}: ${samples} samples, 288,000 ± 1 % expected`);
    }
  });
});

rec(
  'a device faster than the clock (ALSA\'s null gives its samples at once) records each period once: its "on" time in samples',
  async ({ mic }) => {
    await withAgent(mic, { audio: { device: 'null', minFreeBytes: 0 } }, async (agent, token) => {
      const first = await putDutyWindow(agent, token);
      const inPeriod = (p: number) => (f: string) => segmentTime(f) >= p && segmentTime(f) < p + 10_000;
      // Until the third period has begun: the first two are over by the clock, not only by their samples.
      await new Promise((r) => setTimeout(r, first + 20_000 + 1000 - Date.now()));
      const { files, temps } = segments(agent);
      assert.equal(temps, [], 'no temp file left');
      for (const p of [first, first + 10_000]) {
        const mine = files.filter(inPeriod(p));
        assert.is(mine.length, 1, `one segment for the period at ${new Date(p).toISOString()}: ${files.join(', ')}`);
        const samples = Number(execFileSync('soxi', ['-s', mine[0]!]).toString().trim());
        assert.ok(Math.abs(samples - 288_000) <= 2_880, `${mine[0]}: ${samples} samples, 288,000 ± 1 % expected`);
      }
    });
  },
);

rec('the clock gate: no recording while the clock is not synchronized, then within 5 s of it', async ({ mic }) => {
  const synced = join('/tmp', `da-synced-gate-${process.pid}`);
  rmSync(synced, { force: true });
  await withAgent(mic, { clock: { syncedFile: synced } }, async (agent, token) => {
    await api(agent, token, 'PUT', SCHEDULE, doc([windowNow()], { segmentSeconds: 60 }));
    const waiting = (await api(agent, token, 'GET', SCHEDULE)).json.state;
    assert.is(waiting.state, 'waiting');
    assert.is(waiting.reason, 'clock not synchronized');
    assert.ok(waiting.window !== null);
    writeFileSync(synced, '');
    const since = Date.now();
    assert.ok(
      await until(async () => (await api(agent, token, 'GET', SCHEDULE)).json.state.state === 'recording', 5000),
      'recording within 5 s',
    );
    assert.ok(Date.now() - since < 5000);
    rmSync(synced);
    assert.ok(await until(async () => (await api(agent, token, 'GET', SCHEDULE)).json.state.reason === 'clock not synchronized', 5000));
    assert.ok(
      await eventually(() => segments(agent).files.length === 1 && segments(agent).temps.length === 0, 10_000),
      'the segment cut short is kept',
    );
  });
});

rec('a manual recording during a window is a separate file; another format is 409; DELETE keeps the running segment', async ({ mic }) => {
  await withAgent(mic, {}, async (agent, token) => {
    await api(agent, token, 'PUT', SCHEDULE, doc([windowNow()], { segmentSeconds: 60 }));
    assert.ok(await until(async () => (await api(agent, token, 'GET', SCHEDULE)).json.state.state === 'recording', 5000));
    const other = await startRecording(agent, token, { duration: 1, fileExtension: 'wav', sampleRate: 44100 });
    assert.equal([other.status, await other.json()], [409, { error: 'pulse is capturing at 48000 Hz, 1 channel(s)' }]);
    const same = await startRecording(agent, token, { duration: 1, fileExtension: 'wav' });
    assert.is(same.status, 202);
    const r = await waitForEnd(agent, token);
    assert.is(r.state, 'finished');
    assert.ok(r.file!.startsWith('recordings/recording-'));
    assert.is(soxi(join(agent.baseDir, r.file!)).seconds, 1);
    // Stored again while a segment is being written (and the file's poller reloads it): the segment goes on.
    assert.is((await api(agent, token, 'PUT', SCHEDULE, doc([windowNow()], { segmentSeconds: 60 }))).status, 200);
    await new Promise((r) => setTimeout(r, 1500));
    assert.is(segments(agent).temps.length, 1, 'the segment being written is still there');
    const del = await fetch(`${agent.url}${SCHEDULE}`, { method: 'DELETE', headers: bearer(token) });
    assert.is(del.status, 204);
    assert.ok(
      await eventually(() => segments(agent).files.length === 1 && segments(agent).temps.length === 0, 10_000),
      'the running segment kept',
    );
    const after = (await api(agent, token, 'GET', SCHEDULE)).json;
    assert.equal([after.schedule, after.state.state, after.state.reason], [null, 'off', 'no schedule']);
    assert.match(agent.output(), /"event":"schedule.clear"/);
    // Stored after the DELETE: no zone, UTC to the second; a schedule stored since shows it in its zone.
    const at = after.state.lastSegment.startedAt as string;
    assert.match(at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const kolkata = {
      ...doc([{ start: hhmm(Date.now() + 3 * 3_600_000), end: hhmm(Date.now() + 4 * 3_600_000) }]),
      timeZone: 'Asia/Kolkata',
    };
    const put = (await api(agent, token, 'PUT', SCHEDULE, kolkata)).json;
    assert.match(put.state.lastSegment.startedAt, /\+05:30$/);
    assert.is(Date.parse(put.state.lastSegment.startedAt), Date.parse(at));
  });
});

rec(
  "PUT answers the new schedule's state at once: recording for a window under way, after another schedule and after DELETE",
  async ({ mic }) => {
    await withAgent(mic, {}, async (agent, token) => {
      const t = Date.now();
      // A window three hours ahead: waiting, its own next window.
      const later = await api(agent, token, 'PUT', SCHEDULE, doc([{ start: hhmm(t + 3 * 3_600_000), end: hhmm(t + 4 * 3_600_000) }]));
      assert.equal([later.json.state.state, later.json.state.reason], ['waiting', 'outside windows']);
      // A window under way, from the minute before `t`: its window and its next (tomorrow's), not the other schedule's.
      const start = Math.floor((t - 60_000) / 60_000) * 60_000;
      const under = doc([{ start: hhmm(t - 60_000), end: hhmm(t + 10 * 60_000) }]);
      const expect = (
        state: { state: string; reason: unknown; window: { start: string } | null; next: { start: string } | null },
        what: string,
      ) => {
        assert.equal(
          [state.state, state.reason, Date.parse(state.window?.start ?? ''), Date.parse(state.next?.start ?? '')],
          ['recording', null, start, start + 86_400_000],
          `${what}: ${JSON.stringify(state)}`,
        );
      };
      const put = await api(agent, token, 'PUT', SCHEDULE, under);
      assert.is(put.status, 200);
      expect(put.json.state, 'the PUT after another schedule');
      expect((await api(agent, token, 'GET', SCHEDULE)).json.state, 'a GET right after it');
      assert.ok(await eventually(() => segments(agent).temps.length === 1, 5000), 'a segment being written within 5 s');
      // Removed (the running segment ends, kept), then stored again at once.
      const del = await fetch(`${agent.url}${SCHEDULE}`, { method: 'DELETE', headers: bearer(token) });
      assert.is(del.status, 204);
      const again = await api(agent, token, 'PUT', SCHEDULE, under);
      expect(again.json.state, 'the PUT after DELETE');
      expect((await api(agent, token, 'GET', SCHEDULE)).json.state, 'a GET right after it');
      assert.ok(
        await eventually(() => segments(agent).files.length === 1 && segments(agent).temps.length === 1, 5000),
        `the segment DELETE ended kept, a new one being written: ${JSON.stringify(segments(agent))}`,
      );
    });
  },
);

rec('a window that begins while the device captures in another format waits, with that text, then starts', async ({ mic }) => {
  await withAgent(mic, {}, async (agent, token) => {
    const manual = await startRecording(agent, token, { duration: 4, fileExtension: 'wav', sampleRate: 44100 });
    assert.is(manual.status, 202);
    await api(agent, token, 'PUT', SCHEDULE, doc([windowNow()], { segmentSeconds: 60 }));
    const busy = 'pulse is capturing at 44100 Hz, 1 channel(s)';
    assert.ok(
      await until(async () => (await api(agent, token, 'GET', SCHEDULE)).json.state.reason === busy, 3000),
      'waiting for the device',
    );
    assert.is((await api(agent, token, 'GET', SCHEDULE)).json.state.state, 'waiting');
    assert.is((await waitForEnd(agent, token)).state, 'finished');
    assert.ok(
      await until(async () => (await api(agent, token, 'GET', SCHEDULE)).json.state.state === 'recording', 5000),
      'started once the device is free',
    );
  });
});

rec(
  'a schedule written on disk applies within 2 s; kill -9 leaves a temp file the next start removes, and records within 5 s',
  async ({ mic }) => {
    await withAgent(mic, {}, async (agent, token) => {
      writeFileSync(join(agent.dir, 'schedule.json'), JSON.stringify(doc([windowNow()])));
      assert.ok(
        await until(async () => (await api(agent, token, 'GET', SCHEDULE)).json.state.state === 'recording', 3000),
        'applied within 2 s',
      );
      assert.ok(await eventually(() => segments(agent).temps.length === 1, 5000), 'a segment being written');
      await agent.stop('SIGKILL');
      assert.is(segments(agent).temps.length, 1);
      const again = await spawnAgent(agent.dir, mic.env);
      try {
        const token2 = await agent.login().catch(async () => {
          const res = await fetch(`http://127.0.0.1:${again.port}/api/v1/agentusers/loginusertoagent`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ username: 'admin', password: 'correct horse battery' }),
          });
          return ((await res.json()) as { token: string }).token;
        });
        const get = async () =>
          (await (await fetch(`http://127.0.0.1:${again.port}${SCHEDULE}`, { headers: bearer(token2) })).json()) as {
            state: { state: string };
          };
        assert.ok(await until(async () => (await get()).state.state === 'recording', 5000), 'recording within 5 s of the restart');
        assert.ok(
          await eventually(() => segments(agent).temps.length <= 1 && segments(agent).files.length === 0, 1000),
          'the killed segment was removed, not kept',
        );
        // The start's sweep of recordingsDir removed it (the schedule's own pass on loading, before, wrote the first form).
        const said = /removed .*(a segment cut short|segment temp file\(s\) left) by a kill or a power cut/;
        assert.ok(await eventually(() => said.test(again.output()), 3000), again.output());
      } finally {
        again.child.kill('SIGKILL');
      }
      assert.ok(readFileSync(join(agent.dir, 'schedule.json'), 'utf8').includes('"segmentSeconds"'));
    });
  },
);

rec(
  'below minFreeBytes no segment starts (waiting, disk); answers carry the schedule zone offset; the preview names skipped windows',
  async ({ mic }) => {
    // More than any disk here has free: no run may begin (docs/schedule.md, "The disk").
    await withAgent(mic, { audio: { device: 'pulse', minFreeBytes: Number.MAX_SAFE_INTEGER } }, async (agent, token) => {
      // Asia/Kolkata is UTC+05:30 all year: every time in the answers ends with that offset.
      const kolkata = (ms: number) => hhmm(ms + 5.5 * 3_600_000);
      const windows = [{ start: kolkata(Date.now() - 60_000), end: kolkata(Date.now() + 10 * 60_000) }];
      const put = await api(agent, token, 'PUT', SCHEDULE, { ...doc(windows), timeZone: 'Asia/Kolkata' });
      assert.is(put.status, 200);
      assert.ok(await until(async () => (await api(agent, token, 'GET', SCHEDULE)).json.state.reason === 'disk', 5000), 'waiting for disk');
      const state = (await api(agent, token, 'GET', SCHEDULE)).json.state;
      assert.equal([state.state, state.reason], ['waiting', 'disk']);
      assert.match(state.window.start, /^\d{4}-\d\d-\d\dT\d\d:\d\d:00\+05:30$/);
      assert.match(state.window.end, /\+05:30$/);
      assert.match(state.next.start, /\+05:30$/);
      // Several looks later (one a second): still no segment begun, not even a temp file.
      await new Promise((r) => setTimeout(r, 3000));
      assert.equal(segments(agent), { files: [], temps: [] });
      assert.is((await api(agent, token, 'GET', SCHEDULE)).json.state.reason, 'disk');
      const today = state.window.start.slice(0, 10);
      const stored = await api(agent, token, 'GET', `${SCHEDULE}/preview?from=${today}&days=1`);
      assert.is(stored.status, 200);
      assert.match(stored.json.windows[0].start, new RegExp(`^${today}T\\d\\d:\\d\\d:00\\+05:30$`));
      assert.match(stored.json.windows[0].on[0][1], /\+05:30$/);
      // Tromsø at midsummer: no sunrise, so the window is skipped, by its date in the zone and its index.
      const polar = await api(agent, token, 'POST', `${SCHEDULE}/preview`, {
        schedule: {
          location: { latitude: 69.6492, longitude: 18.9553 },
          timeZone: 'Europe/Oslo',
          windows: [
            { start: '10:00', end: '11:00' },
            { start: 'sunrise', end: 'sunrise+1h' },
          ],
        },
        from: '2024-06-20',
        days: 1,
      });
      assert.equal(
        [polar.status, polar.json],
        [
          200,
          {
            windows: [
              {
                start: '2024-06-20T10:00:00+02:00',
                end: '2024-06-20T11:00:00+02:00',
                on: [['2024-06-20T10:00:00+02:00', '2024-06-20T11:00:00+02:00']],
              },
            ],
            skipped: [{ date: '2024-06-20', window: 1, reason: 'no sunrise that day' }],
          },
        ],
      );
    });
  },
);

rec('the disk guard: below minFreeBytes no segment starts; below half of it the running one ends, kept and playable', async ({ mic }) => {
  if (process.getuid?.() !== 0) throw new Error('this test mounts a tmpfs and must run as root');
  writeFileSync(SYNCED, '');
  const MiB = 1024 * 1024;
  const { dir } = await prepareDir({ config: { audio: { device: 'pulse', minFreeBytes: 3 * MiB }, clock: { syncedFile: SYNCED } } });
  const recordings = join(dir, 'files/recordings');
  mkdirSync(recordings);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', recordings]);
  const { child, port } = await spawnAgent(dir, mic.env);
  const url = `http://127.0.0.1:${port}`;
  try {
    const login = await fetch(`${url}/api/v1/agentusers/loginusertoagent`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const { token } = (await login.json()) as { token: string };
    const agent = { url, baseDir: join(dir, 'files') } as TestAgent;
    await api(agent, token, 'PUT', SCHEDULE, doc([windowNow()], { fileExtension: 'wav', segmentSeconds: 3600 }));
    assert.ok(await until(async () => (await api(agent, token, 'GET', SCHEDULE)).json.state.state === 'recording', 5000), 'recording');
    // 4 MiB, 96 KB of wav a second: below 1.5 MiB free after ~27 s, ended within 10 s of it.
    assert.ok(await until(async () => (await api(agent, token, 'GET', SCHEDULE)).json.state.reason === 'disk', 60_000), 'waiting for disk');
    assert.ok(await eventually(() => segments(agent).files.length === 1 && segments(agent).temps.length === 0, 10_000), 'the segment kept');
    const info = soxi(segments(agent).files[0]!);
    assert.ok(info.seconds > 10, `a playable segment of ${info.seconds} s`);
    const state = (await api(agent, token, 'GET', SCHEDULE)).json.state;
    assert.equal([state.state, state.lastSegment.durationSeconds > 10], ['waiting', true]);
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    execFileSync('umount', ['-l', recordings]);
    rmSync(dir, { recursive: true, force: true });
  }
});

rec(
  'a full disk with the guard off: the segment cut short is kept, complete and playable; the run waits (disk), no new segment',
  async ({ mic }) => {
    if (process.getuid?.() !== 0) throw new Error('this test mounts a tmpfs and must run as root');
    writeFileSync(SYNCED, '');
    const { dir } = await prepareDir({ config: { audio: { device: 'pulse', minFreeBytes: 1024 * 1024 }, clock: { syncedFile: SYNCED } } });
    const recordings = join(dir, 'files/recordings');
    mkdirSync(recordings);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', recordings]);
    const { child, port, output } = await spawnAgent(dir, mic.env);
    const url = `http://127.0.0.1:${port}`;
    try {
      const agent = { url, port, dir, child, output, configFile: join(dir, 'config.json'), baseDir: join(dir, 'files') } as TestAgent;
      await reloadAudio(agent, { minFreeBytes: 0 }); // the disk guard off, by SIGHUP
      const login = await fetch(`${url}/api/v1/agentusers/loginusertoagent`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(ADMIN),
      });
      const { token } = (await login.json()) as { token: string };
      await api(agent, token, 'PUT', SCHEDULE, doc([windowNow()], { fileExtension: 'wav', segmentSeconds: 30, channels: 2 }));
      assert.ok(await until(async () => (await api(agent, token, 'GET', SCHEDULE)).json.state.state === 'recording', 5000), 'recording');
      // 3 MiB at 192 kB of wav a second: full after ~16 s, within the first 30 s segment.
      assert.ok(
        await until(async () => (await api(agent, token, 'GET', SCHEDULE)).json.state.reason === 'disk', 40_000),
        `waiting for disk: ${output()}`,
      );
      assert.ok(
        await eventually(() => segments(agent).files.length === 1 && segments(agent).temps.length === 0, 10_000),
        `the segment kept under its final name, no .part: ${JSON.stringify(segments(agent))} ${output()}`,
      );
      const file = segments(agent).files[0]!;
      const info = soxi(file);
      const samples = Number(execFileSync('soxi', ['-s', file], { encoding: 'utf8' }).trim());
      assert.equal([info.type, info.channels, info.rate], ['wav', 2, 48000]);
      assert.ok(info.seconds > 5, `a playable segment of ${info.seconds} s`);
      // The header says what the file holds: 44 bytes of header, then 4 bytes a sample frame.
      assert.is(statSync(file).size, 44 + samples * 4);
      const read = execFileSync('sox', [file, '-n', 'stat'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      assert.ok(!/WARN|FAIL/.test(read), read);
      const state = (await api(agent, token, 'GET', SCHEDULE)).json.state;
      assert.equal([state.state, state.reason], ['waiting', 'disk']);
      assert.ok(Math.abs(state.lastSegment.durationSeconds - samples / 48000) < 0.001, JSON.stringify(state.lastSegment));
      assert.ok(state.lastSegment.file.endsWith(file.split('/').pop()!), state.lastSegment.file);
      // No flood: the run does not start segments against the full disk.
      const lines = (re: RegExp) =>
        output()
          .split('\n')
          .filter((l) => re.test(l)).length;
      const before = [lines(/could not be written|holds no whole sound/), lines(/was cut short and kept/)];
      await new Promise((r) => setTimeout(r, 6000));
      assert.equal([lines(/could not be written|holds no whole sound/), lines(/was cut short and kept/)], before, output());
      assert.equal(before, [0, 1], output());
      assert.equal([segments(agent).files.length, segments(agent).temps.length], [1, 0]);
      const after = (await api(agent, token, 'GET', SCHEDULE)).json.state;
      assert.equal([after.state, after.reason], ['waiting', 'disk']);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      execFileSync('umount', ['-l', recordings]);
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

rec.run();
