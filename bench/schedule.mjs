// The schedule (docs/schedule.md): what recording on a schedule and its preview cost.
//   - CPU per second of audio while the schedule records flac in segments of `segmentSeconds`,
//     in its steady state, `settleSeconds` into the recording (the agent's threads, its
//     capture program and its encoders, one per segment), against sox alone writing one
//     flac from the same device. Both run at the same time from the same private
//     PulseAudio virtual microphone playing pink noise (as bench/audio.mjs), and
//     are read over the same windows, so a loaded host weighs on both alike. Each window lasts
//     exactly one segment, so it holds exactly one segment boundary (an encoder ending and the
//     next starting): an ended encoder's CPU is read from the agent's cutime/cstime
//     (/proc/PID/stat, clock ticks), a live one's from its threads' schedstat.
//   - For context on the same host, a manual flac recording (one file) beside the same sox
//     over one window (bench/audio.mjs's row measures it apart from sox).
//   - The preview of 366 days of 16 windows (half sun events, four with duty cycles): the
//     agent's main-thread CPU (/proc/PID/task/PID/schedstat) around one POST
//     /api/v1/schedule/preview (request parsed, token checked, windows computed, JSON
//     answered): the first of the process, then the median of the next ones.
// Idle RSS and exec → first answer with no schedule configured are run.mjs's rows: the
// bench's agents have no schedule file.
//   node bench/schedule.mjs [--rounds N] [--segment S] [--previews N] [--settle S]   (needs dist/device-agent)
// bench/run.mjs adds scheduleRows()'s rows to BENCHMARKS.md.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMic } from './audio.mjs';
import { procStats, startAgentBin } from './procs.mjs';
import { median, pairRatio, table } from './report.mjs';
import { BIN, numberArg, ranAlone } from './alone.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Clock ticks per second of /proc/PID/stat's times (getconf CLK_TCK on Linux). */
const TICK = 100;

/** utime, stime, cutime, cstime of /proc/PID/stat, in seconds. */
function statTimes(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { self: (Number(f[11]) + Number(f[12])) / TICK, reaped: (Number(f[13]) + Number(f[14])) / TICK };
}

function children(pid) {
  const out = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    } catch {
      /* thread gone */
    }
  }
  return out;
}

/**
 * CPU seconds of a process's threads, its live children's and those it reaped: a segment's
 * encoder that ends inside a window is counted up to its end (in the parent's cutime once
 * reaped), so the delta over a window is the tree's CPU in it.
 */
export function treeCpu(pid) {
  let s = procStats(pid).cpuS + statTimes(pid).reaped;
  for (const c of children(pid)) {
    try {
      s += procStats(c).cpuS + statTimes(c).reaped;
    } catch {
      /* exited meanwhile */
    }
  }
  return s;
}

/** Main-thread CPU seconds (the event loop's thread: TID = PID). */
function mainThreadCpu(pid) {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
}

const hhmm = (ms) => new Date(ms).toISOString().slice(11, 16);

/**
 * A schedule recording from now on: one window from a minute ago to two minutes ago the next
 * day (an end at or before its start is the next day's), flac in `segmentSeconds` segments.
 */
export function nowSchedule(segmentSeconds) {
  const now = Date.now();
  return {
    timeZone: 'UTC',
    recording: { fileExtension: 'flac', sampleRate: 48000, channels: 1, segmentSeconds },
    windows: [{ start: hhmm(now - 60_000), end: hhmm(now - 120_000) }],
  };
}

/** 16 windows: eight from sun events, eight from wall times; four with duty cycles; days and dates on two. */
export const PREVIEW_SCHEDULE = {
  location: { latitude: 52.2, longitude: 0.12 },
  timeZone: 'Europe/London',
  windows: [
    { start: 'sunrise-30m', end: 'sunrise+2h', duty: { onSeconds: 60, offSeconds: 240 } },
    { start: 'sunset-1h', end: 'sunset+30m' },
    { start: 'dawn', end: 'sunrise' },
    { start: 'dusk', end: 'nauticalDusk' },
    { start: 'nightEnd', end: 'nauticalDawn' },
    { start: 'solarNoon-15m', end: 'solarNoon+15m', duty: { onSeconds: 30, offSeconds: 270 } },
    { start: 'nauticalDawn', end: 'nauticalDawn+20m' },
    { start: 'night', end: 'night+1h' },
    { start: '00:00', end: '00:30' },
    { start: '03:00', end: '03:20', duty: { onSeconds: 10, offSeconds: 50 } },
    { start: '06:00', end: '06:10' },
    { start: '09:00', end: '09:15', days: ['mon', 'wed', 'fri'] },
    { start: '12:30', end: '13:00' },
    { start: '15:00', end: '15:05', dates: { from: '03-15', to: '07-31' } },
    { start: '18:00', end: '18:45', duty: { onSeconds: 120, offSeconds: 180 } },
    { start: '22:00', end: '23:30' },
  ],
};

async function api(agent, method, path, body) {
  const res = await fetch(`${agent.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${agent.token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Waits until the schedule's state is `recording` (it should be within 5 s of a PUT). */
export async function untilRecording(agent, timeoutMs = 15_000) {
  let state;
  for (const until = Date.now() + timeoutMs; Date.now() < until; await sleep(200)) {
    state = (await api(agent, 'GET', '/api/v1/schedule')).state;
    if (state.state === 'recording') return;
  }
  throw new Error(`the schedule did not record within ${timeoutMs} ms: ${JSON.stringify(state)}`);
}

/** Main-thread CPU (s) of each of `n` previews of 366 days of PREVIEW_SCHEDULE, in order. */
async function previews(agent, n) {
  const pid = agent.child.pid;
  const out = [];
  let windows = 0;
  for (let i = 0; i < n; i++) {
    const c0 = mainThreadCpu(pid);
    const answer = await api(agent, 'POST', '/api/v1/schedule/preview', { schedule: PREVIEW_SCHEDULE, from: '2025-01-01', days: 366 });
    out.push(mainThreadCpu(pid) - c0);
    windows = answer.windows.length;
    await sleep(100);
  }
  return { cpu: out, windows };
}

/** `YYYY-MM-DD/YYYYMMDD_HHMMSS.flac`: the segment named from an instant (docs/schedule.md). */
function segmentPath(ms) {
  const iso = new Date(ms).toISOString();
  return join(iso.slice(0, 10), `${iso.slice(0, 10).replace(/-/g, '')}_${iso.slice(11, 19).replace(/:/g, '')}.flac`);
}

/** A live wav stream of the device, kept whole: the capture as the agent reads it. */
async function listen(agent) {
  const res = await fetch(`${agent.url}/api/v1/audio/live?format=wav`, { headers: { Authorization: `Bearer ${agent.token}` } });
  if (res.status !== 200) throw new Error(`live answered ${res.status}`);
  const chunks = [];
  const reader = res.body.getReader();
  const done = (async () => {
    for (;;) {
      const { value, done: end } = await reader.read().catch(() => ({ done: true }));
      if (end) return;
      chunks.push(value);
    }
  })();
  return {
    async close() {
      await reader.cancel().catch(() => {});
      await done;
      return Buffer.concat(chunks);
    },
  };
}

/**
 * Duty-cycle periods of ON_S seconds (off OFF_S) recorded in 10 s segments, two of them:
 * the first while a live stream holds the capture (the period's samples, joined across its
 * segments, are then checked against the stream byte for byte: none lost or repeated), the
 * second with no other consumer (the capture starts for the period). Each one's sample
 * count over ON_S × rate.
 */
const ON_S = 20;
const OFF_S = 5;
async function periodSamples(agent, log) {
  const t = Date.now();
  const windowStart = Math.floor((t - 60_000) / 60_000) * 60_000;
  await api(agent, 'PUT', '/api/v1/schedule', {
    timeZone: 'UTC',
    recording: { fileExtension: 'flac', segmentSeconds: 10, directory: 'periods' },
    windows: [{ start: hhmm(t - 60_000), end: hhmm(t - 120_000), duty: { onSeconds: ON_S, offSeconds: OFF_S } }],
  });
  const every = (ON_S + OFF_S) * 1000;
  const first = windowStart + Math.ceil((Date.now() + 4000 - windowStart) / every) * every;
  const root = join(agent.filesDir, 'recordings/periods');
  // A period's first segment is named from its start exactly; the next ones from their first
  // sample's arrival (within a second of 10 s later).
  const expected = Math.ceil(ON_S / 10);
  const segmentsOf = (start) => {
    const day = join(root, segmentPath(start).slice(0, 10));
    const names = existsSync(day) ? readdirSync(day).filter((n) => !n.startsWith('.')) : [];
    return names
      .map((n) => ({ n, at: Date.parse(n.replace(/^(\d{4})(\d\d)(\d\d)_(\d\d)(\d\d)(\d\d)\.flac$/, '$1-$2-$3T$4:$5:$6Z')) }))
      .filter(({ at }) => at >= start && at < start + (ON_S - 2) * 1000)
      .sort((x, y) => x.at - y.at)
      .map(({ n }) => join(day, n));
  };
  const samplesOf = async (start) => {
    for (const until = start + ON_S * 1000 + 10_000; Date.now() < until; await sleep(250)) {
      if (segmentsOf(start).length === expected && Date.now() > start + ON_S * 1000 + 1500) break;
    }
    const names = segmentsOf(start);
    if (names[0] !== join(root, segmentPath(start)) || names.length !== expected)
      throw new Error(`the period from ${new Date(start).toISOString()}: segments ${names.join(', ') || 'none'}`);
    const pcm = Buffer.concat(names.map((n) => execFileSync('sox', [n, '-t', 'raw', '-'], { maxBuffer: 1 << 27 })));
    const info = execFileSync('soxi', [names[0]]).toString();
    const rate = Number(/Sample Rate\s*:\s*(\d+)/.exec(info)[1]);
    const channels = Number(/Channels\s*:\s*(\d+)/.exec(info)[1]);
    return { pcm, samples: pcm.length / (2 * channels), rate };
  };
  log(`schedule: a ${ON_S} s period from ${new Date(first).toISOString()} with a live stream, then the next one without`);
  const live = await listen(agent);
  await sleep(Math.max(0, first + ON_S * 1000 + 1500 - Date.now()));
  const stream = (await live.close()).subarray(44);
  const a = await samplesOf(first);
  const at = stream.indexOf(a.pcm.subarray(0, 4096));
  const whole = at >= 0 && stream.length - at >= a.pcm.length && stream.subarray(at, at + a.pcm.length).equals(a.pcm);
  const b = await samplesOf(first + every);
  await api(agent, 'DELETE', '/api/v1/schedule');
  return { shared: a.samples / (ON_S * a.rate), whole, alone: b.samples / (ON_S * b.rate) };
}

export async function scheduleRows({ bin, rounds = 3, segmentSeconds = 20, previewCount = 10, settleSeconds = 30, log = () => {} }) {
  const dir = mkdtempSync(join(tmpdir(), 'da-bench-schedule-'));
  const mic = startMic(join(dir, 'pulse'));
  const synced = join(dir, 'synced');
  writeFileSync(synced, '');
  const agent = await startAgentBin(
    bin,
    join(dir, 'agent'),
    { audio: { device: 'pulse', minFreeBytes: 0 }, clock: { syncedFile: synced } },
    mic.env,
  );
  const pid = agent.child.pid;
  let sox;
  try {
    // The preview first, in a process that has not computed a window yet: its first call is
    // the cold one (the runtime's time zone data, code not yet compiled).
    log(`schedule: ${previewCount} previews of 366 days of 16 windows`);
    const pv = await previews(agent, previewCount + 1);
    const [cold, ...warm] = pv.cpu.map((s) => s * 1000);

    log(`schedule: recording flac in ${segmentSeconds} s segments beside sox alone, ${rounds} window(s) of ${segmentSeconds} s`);
    sox = spawn('sox', ['-q', '-t', 'alsa', 'pulse', '-r', '48000', '-c', '1', '-b', '16', '-t', 'flac', join(dir, 'sox.flac')], {
      env: { ...process.env, ...mic.env },
      stdio: 'ignore',
    });
    await api(agent, 'PUT', '/api/v1/schedule', nowSchedule(segmentSeconds));
    await untilRecording(agent);
    // The recording's steady state: the first window began 5 s in, and its agent threads
    // took 4.2 ms/s against 2.4-2.5 in the next two (one run, 2026-11-29): the previews'
    // garbage and the process's first half minute (an idle agent takes 1.6-2.1 ms/s in
    // its first 25 s and 0.3 after 40), not the seconds of audio.
    await sleep(settleSeconds * 1000);
    const scheduled = [];
    const alone = [];
    const own = [];
    for (let i = 0; i < rounds; i++) {
      const o0 = procStats(pid).cpuS;
      const a0 = treeCpu(pid);
      const s0 = procStats(sox.pid).cpuS;
      const t0 = process.hrtime.bigint();
      await sleep(segmentSeconds * 1000);
      const a1 = treeCpu(pid);
      const o1 = procStats(pid).cpuS;
      const s1 = procStats(sox.pid).cpuS;
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      scheduled.push(((a1 - a0) / wall) * 1000);
      alone.push(((s1 - s0) / wall) * 1000);
      own.push(((o1 - o0) / wall) * 1000);
      log(
        `schedule: window ${i + 1}: agent ${scheduled.at(-1).toFixed(1)} ms/s (its own threads ${own.at(-1).toFixed(1)}), sox ${alone.at(-1).toFixed(1)} ms/s`,
      );
    }
    const { state } = await api(agent, 'GET', '/api/v1/schedule');
    if (state.state !== 'recording' || !state.lastSegment) throw new Error(`the schedule stopped recording: ${JSON.stringify(state)}`);
    // For context on this host: a manual flac recording (one file, as bench/audio.mjs's row)
    // beside the same sox, over one window of the same length.
    log('schedule: a manual flac recording beside sox alone, for context');
    await api(agent, 'DELETE', '/api/v1/schedule');
    await api(agent, 'POST', '/api/v1/audiofiles/audiorecordstart', { duration: 3600, fileExtension: 'flac' });
    await sleep(2000);
    const manual = [];
    const alone2 = [];
    {
      const a0 = treeCpu(pid);
      const s0 = procStats(sox.pid).cpuS;
      const t0 = process.hrtime.bigint();
      await sleep(segmentSeconds * 1000);
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      manual.push(((treeCpu(pid) - a0) / wall) * 1000);
      alone2.push(((procStats(sox.pid).cpuS - s0) / wall) * 1000);
    }
    await api(agent, 'POST', '/api/v1/audiofiles/audiorecordstop');
    const periods = await periodSamples(agent, log);
    const within = (ratio) => Math.abs(ratio - 1) <= 0.005;
    return [
      {
        figure: `CPU per second of audio, scheduled flac in ${segmentSeconds} s segments (agent threads + capture and encoders)`,
        unit: 'ms/s',
        agent: scheduled,
        baseline: alone,
        baselineName: 'sox alone writing one flac, same time',
        target: '≤ 1.15 × sox',
        ok: pairRatio(scheduled, alone) <= 1.15,
        digits: 1,
      },
      {
        figure: 'the same, a manual flac recording (one file), for context on this host',
        unit: 'ms/s',
        agent: manual,
        baseline: alone2,
        baselineName: 'sox alone writing one flac, same time',
        target: 'report',
        ok: true,
        digits: 1,
      },
      {
        figure: `samples of a ${ON_S} s duty-cycle period in two consecutive 10 s segments, over ${ON_S} s × rate, a live stream holding the capture (${periods.whole ? 'joined, byte for byte the stream: none lost or repeated' : 'NOT the stream byte for byte'})`,
        unit: '%',
        agent: [periods.shared * 100],
        target: 'within 0.5 %, none repeated',
        ok: within(periods.shared) && periods.whole,
        digits: 2,
      },
      {
        figure: 'the same, the next period, the capture started for it alone',
        unit: '%',
        agent: [periods.alone * 100],
        target: 'within 0.5 %',
        ok: within(periods.alone),
        digits: 2,
      },
      {
        figure: `preview of 366 days of 16 windows (${pv.windows} merged), main-thread CPU of the request, first of the process`,
        unit: 'ms',
        agent: [cold],
        target: 'report',
        ok: true,
        digits: 1,
      },
      {
        figure: `the same, once warm (median of ${previewCount})`,
        unit: 'ms',
        agent: warm,
        target: '≤ 50 ms',
        ok: median(warm) <= 50,
        digits: 1,
      },
    ];
  } finally {
    sox?.kill('SIGINT');
    await agent.stop();
    mic.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (ranAlone(import.meta.url)) {
  const rows = await scheduleRows({
    bin: BIN,
    rounds: numberArg('rounds', 3),
    segmentSeconds: numberArg('segment', 20),
    previewCount: numberArg('previews', 10),
    settleSeconds: numberArg('settle', 30),
    log: (s) => console.error(s),
  });
  console.log(table(rows));
}
