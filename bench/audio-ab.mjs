// Audio A/B: builds of the agent side by side, each recording flac from the bench's
// PulseAudio virtual microphone in turn (alternating order), against sox alone writing the
// same flac, in rounds; per round the CPU of the agent, its capture program and its
// encoder (schedstat, over WINDOW seconds in the middle of each recording), and of each
// agent idle. For comparing an old build with a new one on a noisy shared host
// (docs/performance.md, "Audio"):
//   cp dist/device-agent /tmp/old-agent; ...change, npm run build...
//   node bench/audio-ab.mjs 5 8 /tmp/old-agent dist/device-agent
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMic } from './audio.mjs';
import { startAgentBin } from './procs.mjs';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const [rounds, window, ...bins] = [Number(process.argv[2]), Number(process.argv[3]), ...process.argv.slice(4)];
const dir = mkdtempSync(join(tmpdir(), 'ab-'));
const mic = startMic(join(dir, 'pulse'));
const menv = mic.env;
const env = { ...process.env, ...menv };
function cpu(pid) {
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch {}
  }
  return ns / 1e6;
}
function kids(pid) {
  const o = [];
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const s = readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim();
      if (s) o.push(...s.split(/\s+/).map(Number));
    } catch {}
  }
  return o;
}
function parts(pid) {
  const p = { agent: cpu(pid) };
  for (const k of kids(pid)) {
    try {
      const a = readFileSync(`/proc/${k}/cmdline`, 'utf8').split('\0');
      const name = a.includes('flac') ? 'enc' : 'cap';
      p[name] = (p[name] ?? 0) + cpu(k);
    } catch {}
  }
  return p;
}
async function rate(pid) {
  const a = parts(pid);
  const t0 = Date.now();
  await sleep(window * 1000);
  const b = parts(pid);
  const s = (Date.now() - t0) / 1000;
  const o = {};
  for (const k of Object.keys(b)) o[k] = (b[k] - (a[k] ?? 0)) / s;
  o.tree = Object.values(o).reduce((x, y) => x + y, 0);
  return o;
}
const agents = [];
for (const [i, bin] of bins.entries())
  agents.push({ bin, a: await startAgentBin(bin, join(dir, `agent${i}`), { audio: { device: 'pulse' } }, menv), res: [], idle: [] });
const sox = [];
const H = (a) => ({ 'Content-Type': 'application/json', Authorization: `Bearer ${a.token}` });
for (let r = 0; r < rounds; r++) {
  const order = [...agents];
  if (r % 2) order.reverse();
  // idle
  for (const g of order) {
    const c0 = cpu(g.a.child.pid);
    const t0 = Date.now();
    await sleep(window * 1000);
    g.idle.push((cpu(g.a.child.pid) - c0) / ((Date.now() - t0) / 1000));
  }
  const soxRun = async () => {
    const ch = spawn('sox', ['-q', '-t', 'alsa', 'pulse', '-r', '48000', '-c', '1', '-b', '16', '-t', 'flac', join(dir, `s${r}.flac`)], {
      env,
      stdio: 'ignore',
    });
    await sleep(2000);
    const c0 = cpu(ch.pid);
    const t0 = Date.now();
    await sleep(window * 1000);
    sox.push((cpu(ch.pid) - c0) / ((Date.now() - t0) / 1000));
    ch.kill('SIGINT');
    await new Promise((x) => ch.once('exit', x));
  };
  if (r % 2 === 0) await soxRun();
  for (const g of order) {
    const res = await fetch(`${g.a.url}/api/v1/audiofiles/audiorecordstart`, {
      method: 'POST',
      headers: H(g.a),
      body: JSON.stringify({ duration: 3600, fileExtension: 'flac' }),
    });
    if (res.status !== 202) throw new Error(await res.text());
    await sleep(2000);
    g.res.push(await rate(g.a.child.pid));
    await fetch(`${g.a.url}/api/v1/audiofiles/audiorecordstop`, { method: 'POST', headers: H(g.a) });
    await sleep(500);
  }
  if (r % 2 === 1) await soxRun();
  console.error(
    `round ${r + 1}: sox ${sox.at(-1).toFixed(2)} ` +
      agents
        .map(
          (g, i) =>
            `#${i} tree ${g.res.at(-1).tree.toFixed(2)} agent ${g.res.at(-1).agent.toFixed(2)} cap ${g.res.at(-1).cap?.toFixed(2)} enc ${g.res.at(-1).enc?.toFixed(2)} idle ${g.idle.at(-1).toFixed(2)}`,
        )
        .join(' | '),
  );
}
const med = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f = (a) => `${med(a).toFixed(2)} (${Math.min(...a).toFixed(2)}–${Math.max(...a).toFixed(2)})`;
console.log(`sox alone flac: ${f(sox)} ms/s`);
for (const g of agents) {
  console.log(
    `${g.bin}: tree ${f(g.res.map((x) => x.tree))}  ratio ${(med(g.res.map((x) => x.tree)) / med(sox)).toFixed(3)}  agent ${f(g.res.map((x) => x.agent))}  cap ${f(g.res.map((x) => x.cap ?? 0))}  enc ${f(g.res.map((x) => x.enc ?? 0))}  idle ${f(g.idle)}`,
  );
  // per-round pair ratios
  console.log('   pair ratios', g.res.map((x, i) => (x.tree / sox[i]).toFixed(3)).join(' '));
}
for (const g of agents) g.a.stop();
await sleep(500);
mic.stop();
rmSync(dir, { recursive: true, force: true });
