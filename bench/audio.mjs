// Audio: what recording and listening cost, on a private PulseAudio server's paced virtual
// microphone (as the tests use; packages pulseaudio, libasound2-plugins).
//   - CPU per second of audio while recording flac (the agent's threads and its children:
//     the capture program and the encoder), against sox alone writing the same flac;
//   - the same with 4 live wav listeners;
//   - RSS growth of the agent with 4 listeners over `soakS` seconds;
//   - status req/s while recording with 4 listeners, against the same agent idle.
// CPU is read over a window in the middle of each run (schedstat, ns), so the start and
// end of the programs do not count.
//   node bench/audio.mjs [--rounds N] [--window S] [--soak S] [--seconds S]   (needs dist/device-agent and wrk)
// bench/run.mjs adds audioRows()'s rows to BENCHMARKS.md.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wrk } from './clients.mjs';
import { procStats, startAgentBin } from './procs.mjs';
import { median, pairRatio, table } from './report.mjs';
import { BIN, numberArg, ranAlone } from './alone.mjs';

const LISTENERS = 4;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A private PulseAudio server with a null sink, as test/helpers/pulse.ts starts it, playing pink noise. */
export function startMic(dir) {
  mkdirSync(dir, { recursive: true });
  const env = { XDG_RUNTIME_DIR: dir, HOME: dir, PULSE_SERVER: `unix:${join(dir, 'pulse/native')}` };
  const run = (cmd, args) =>
    execFileSync(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
  run('pulseaudio', [
    '-D',
    '--exit-idle-time=-1',
    '-n',
    '--load=module-native-protocol-unix auth-anonymous=1',
    '--load=module-null-sink sink_name=vsink',
  ]);
  run('pactl', ['set-default-source', 'vsink.monitor']);
  const listener = spawn('parec', ['--latency-msec=20'], { env: { ...process.env, ...env }, stdio: 'ignore' });
  // Sound to encode: flac of silence costs next to nothing and would flatter both sides.
  const tone = spawn('sox', ['-q', '-n', '-t', 'alsa', 'pulse', 'synth', '3600', 'pinknoise', 'gain', '-20'], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  return {
    env,
    stop() {
      tone.kill();
      listener.kill();
      try {
        process.kill(Number(readFileSync(join(dir, 'pulse/pid'), 'utf8').trim()), 'SIGTERM');
      } catch {
        /* gone */
      }
    },
  };
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

/** CPU seconds of a process's threads and of its children's (the capture program, the encoders). */
function treeCpu(pid) {
  let s = procStats(pid).cpuS;
  for (const c of children(pid)) {
    try {
      s += procStats(c).cpuS;
    } catch {
      /* exited meanwhile */
    }
  }
  return s;
}

/** CPU per wall second of `pid`'s tree over `window` seconds. */
async function cpuRate(pid, window) {
  const c0 = treeCpu(pid);
  const t0 = process.hrtime.bigint();
  await sleep(window * 1000);
  return (treeCpu(pid) - c0) / (Number(process.hrtime.bigint() - t0) / 1e9);
}

/** `n` live wav streams, read as fast as they come; two users take turns (one holds at most 2). */
async function listeners(agent, n) {
  agent.token2 ??= await agent.secondToken();
  const { port } = new URL(agent.url);
  const open = await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise((resolve, reject) => {
          const req = request(
            {
              host: '127.0.0.1',
              port,
              path: '/api/v1/audio/live?format=wav',
              agent: false,
              headers: { Authorization: `Bearer ${i % 2 === 0 ? agent.token : agent.token2}` },
            },
            (res) => {
              if (res.statusCode !== 200) {
                let b = '';
                res.on('data', (d) => {
                  b += d;
                });
                res.on('end', () => reject(new Error(`live answered ${res.statusCode}: ${b}`)));
                return;
              }
              const s = { req, bytes: 0 };
              res.on('data', (d) => {
                s.bytes += d.length;
              });
              res.on('error', () => {});
              resolve(s);
            },
          );
          req.on('error', reject);
          req.end();
        }),
    ),
  );
  return {
    streams: open,
    close: () => {
      for (const s of open) s.req.destroy();
    },
  };
}

async function startFlac(agent, seconds) {
  const res = await fetch(`${agent.url}/api/v1/audiofiles/audiorecordstart`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${agent.token}` },
    body: JSON.stringify({ duration: seconds, fileExtension: 'flac' }),
  });
  if (res.status !== 202) throw new Error(`start answered ${res.status}: ${await res.text()}`);
}

async function stopRecording(agent) {
  await fetch(`${agent.url}/api/v1/audiofiles/audiorecordstop`, { method: 'POST', headers: { Authorization: `Bearer ${agent.token}` } });
}

export async function audioRows({ bin, rounds = 3, window = 8, soakS = 60, seconds = 5, pairs = 3, log = () => {} }) {
  const dir = mkdtempSync(join(tmpdir(), 'da-bench-audio-'));
  const mic = startMic(join(dir, 'pulse'));
  const agent = await startAgentBin(bin, join(dir, 'agent'), { audio: { device: 'pulse' } }, mic.env);
  const pid = agent.child.pid;
  const alone = [];
  const sox = [];
  const withListeners = [];
  const rss = [];
  const status = [[], []]; // req/s [recording with listeners, idle]
  try {
    for (let i = 0; i < rounds; i++) {
      log(`audio: round ${i + 1} of ${rounds}`);
      // sox alone, writing the same flac from the same device.
      const out = join(dir, `sox-${i}.flac`);
      const child = spawn('sox', ['-q', '-t', 'alsa', 'pulse', '-r', '48000', '-c', '1', '-b', '16', '-t', 'flac', out], {
        env: { ...process.env, ...mic.env },
        stdio: 'ignore',
      });
      await sleep(2000);
      sox.push(await cpuRate(child.pid, window));
      child.kill('SIGINT');
      await new Promise((r) => child.once('exit', r));
      // The agent recording the same.
      await startFlac(agent, 3600);
      await sleep(2000);
      alone.push(await cpuRate(pid, window));
      const l = await listeners(agent, LISTENERS);
      await sleep(1000);
      withListeners.push(await cpuRate(pid, window));
      l.close();
      await stopRecording(agent);
    }
    log(`audio: RSS with ${LISTENERS} listeners over ${soakS} s, recording`);
    await startFlac(agent, 3600);
    const l = await listeners(agent, LISTENERS);
    await sleep(3000);
    const start = procStats(pid).rssKb;
    const samples = [];
    for (let t = 0; t < soakS; t += 5) {
      await sleep(5000);
      samples.push((procStats(pid).rssKb - start) / 1024);
    }
    rss.push(samples.at(-1));
    log(`audio: status req/s, recording with ${LISTENERS} listeners against idle`);
    const statusUrl = `${agent.url}/api/v1/devicestatus/get`;
    const headers = { Authorization: `Bearer ${agent.token}` };
    await wrk(statusUrl, headers, 1); // warm-up
    const busy = async () => {
      status[0].push((await wrk(statusUrl, headers, seconds)).rps);
    };
    const idle = async () => {
      l.close();
      await stopRecording(agent);
      await sleep(500);
      status[1].push((await wrk(statusUrl, headers, seconds)).rps);
    };
    for (let i = 0; i < pairs; i++) {
      if (i > 0) {
        await startFlac(agent, 3600);
        Object.assign(l, await listeners(agent, LISTENERS));
        await sleep(1000);
      }
      await busy();
      await idle();
    }
    return {
      rows: [
        {
          figure: 'CPU while recording flac, per second of audio (agent threads + capture and encoder)',
          unit: 'ms/s',
          agent: alone.map((x) => x * 1000),
          baseline: sox.map((x) => x * 1000),
          baselineName: 'sox alone, same flac',
          target: 'report; ≤ 1.1 × sox',
          ok: pairRatio(alone, sox) <= 1.1,
          digits: 1,
        },
        {
          figure: `the same with ${LISTENERS} live wav listeners`,
          unit: 'ms/s',
          agent: withListeners.map((x) => x * 1000),
          baseline: alone.map((x) => x * 1000),
          baselineName: 'recording alone',
          target: '≤ 1.3 × recording alone',
          ok: pairRatio(withListeners, alone) <= 1.3,
          digits: 1,
        },
        {
          figure: `RSS growth with ${LISTENERS} live listeners for ${soakS} s (recording)`,
          unit: 'MB',
          agent: rss,
          target: '≤ +4 MB',
          ok: median(rss) <= 4,
          digits: 2,
          samples,
        },
        {
          figure: `device status while recording with ${LISTENERS} listeners`,
          unit: 'req/s',
          agent: status[0],
          baseline: status[1],
          baselineName: 'same agent, idle',
          target: '≥ 0.9 × idle',
          ok: pairRatio(status[0], status[1]) >= 0.9,
          digits: 0,
        },
      ],
      samples,
    };
  } finally {
    await agent.stop();
    mic.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (ranAlone(import.meta.url)) {
  const r = await audioRows({
    bin: BIN,
    rounds: numberArg('rounds', 3),
    window: numberArg('window', 8),
    soakS: numberArg('soak', 60),
    seconds: numberArg('seconds', 5),
    pairs: numberArg('pairs', 3),
    log: (s) => console.error(s),
  });
  console.log(table(r.rows));
  console.log(`\nRSS growth every 5 s (MB): ${r.samples.map((x) => x.toFixed(2)).join(' ')}`);
}
