// Memory of the built agent under the loads a small device must survive: a login, the
// pipelining attack (connections that send hundreds of downloads in one write and never
// read), one upload, 8 concurrent uploads over plain HTTP and over TLS, the RSS after
// them, and a login plus 8 uploads with the agent in a 128 MB memory cgroup. Each load on
// a fresh agent; figures in MB over the agent's own idle RSS (VmRSS 1 s after start).
//   node bench/memory.mjs [--mb N] [--rounds N] [--no-cgroup]   (also a part of npm run bench)
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { AGENT_LISTENING, baseConfig, portIn, procStats, resetPeak } from './procs.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mbOf = (kb) => kb / 1024;
const fds = (pid) => readdirSync(`/proc/${pid}/fd`).length;

function makeFile(file, size) {
  const chunk = randomBytes(1 << 20);
  const fd = openSync(file, 'w');
  for (let left = size; left > 0; left -= chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, left));
  closeSync(fd);
}

/** The memory cgroup (v1) directory, or null where there is none or we may not make one. */
export function memoryCgroupRoot() {
  const root = '/sys/fs/cgroup/memory';
  return process.getuid?.() === 0 && existsSync(join(root, 'cgroup.procs')) ? root : null;
}

/**
 * Starts the agent (not logged in): `tls` turns HTTPS on with a self-signed pair made in
 * the directory; `cgroup`, a directory of the memory controller, puts the process in it
 * before it runs (a shell writes its own pid there, then execs the agent).
 */
export async function startAgent(bin, dir, { tls = false, cgroup } = {}) {
  mkdirSync(join(dir, 'files'), { recursive: true });
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify(baseConfig(tls ? { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' } } : {})));
  if (!existsSync(join(dir, 'users.json'))) {
    execFileSync(process.env.CLI_BIN ?? bin, ['user', 'add', 'bench', '--config', config], {
      input: 'bench-password\n',
      stdio: ['pipe', 'ignore', 'inherit'],
    });
  }
  const logFile = join(dir, `agent-${process.hrtime.bigint()}.log`);
  const fd = openSync(logFile, 'w');
  const argv = cgroup
    ? ['/bin/sh', ['-c', `echo $$ > ${cgroup}/cgroup.procs && exec "$0" "$@"`, bin, 'serve', '--config', config]]
    : [bin, ['serve', '--config', config]];
  const child = spawn(argv[0], argv[1], { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const port = await portIn(logFile, AGENT_LISTENING, child, { timeoutMs: 15_000 });
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  return {
    child,
    url,
    port,
    dir,
    filesDir: join(dir, 'files'),
    logFile,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
    async login() {
      const status = await curlTo(join(dir, 'login.json'), [
        '-H',
        'Content-Type: application/json',
        '--data',
        '{"username":"bench","password":"bench-password"}',
        `${url}/api/v1/agentusers/loginusertoagent`,
      ]);
      if (status !== 200) throw new Error(`login answered ${status}`);
      return JSON.parse(readFileSync(join(dir, 'login.json'), 'utf8')).token;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** curl -o FILE with our own output (clients.mjs's curl writes to /dev/null). */
function curlTo(out, args) {
  return new Promise((resolve) => {
    const c = spawn('curl', ['-s', '-S', '-k', '-o', out, '-w', '%{http_code}', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let s = '';
    c.stdout.on('data', (d) => {
      s += d;
    });
    c.on('close', () => resolve(Number(s)));
  });
}

export function uploadArgs(url, token, src, saveTo) {
  return [
    '-H',
    `Authorization: Bearer ${token}`,
    '-H',
    'Expect:',
    '-F',
    `saveToPath=${saveTo}`,
    '-F',
    `myFile=@${src}`,
    `${url}/api/upload`,
  ];
}

/** Samples VmRSS and descriptors every 50 ms while `work` runs; the maxima. */
async function sampled(pid, work) {
  let maxRss = 0;
  let maxFds = 0;
  let on = true;
  const sampler = (async () => {
    while (on) {
      try {
        maxRss = Math.max(maxRss, procStats(pid).rssKb);
        maxFds = Math.max(maxFds, fds(pid));
      } catch {
        /* exited */
      }
      await sleep(50);
    }
  })();
  try {
    return { value: await work(), maxRssKb: maxRss, maxFds };
  } finally {
    on = false;
    await sampler;
  }
}

/** Waits until RSS is 1 s after start, the figure loads are measured over. */
async function idleOf(agent) {
  await sleep(1000);
  const st = procStats(agent.child.pid);
  return { rssKb: st.rssKb, anonKb: st.anonKb, fds: fds(agent.child.pid) };
}

/** Peak RSS of a login over the idle agent's RSS. */
export async function loginFigure(bin, dir) {
  const agent = await startAgent(bin, dir);
  try {
    const idle = await idleOf(agent);
    resetPeak(agent.child.pid);
    await agent.login();
    return { overIdle: mbOf(procStats(agent.child.pid).hwmKb - idle.rssKb), idle: mbOf(idle.rssKb) };
  } finally {
    await agent.stop();
  }
}

/**
 * `connections` connections each send `requests` pipelined downloads of a 20 MB file in one
 * write and never read. Meanwhile a health check and a status request on other
 * connections must be answered. Figures: peak RSS and descriptors over idle while the
 * attack stands (`holdMs`), and RSS 5 s after the attackers closed.
 */
export async function pipeliningFigure(bin, dir, { connections = 5, requests = 500, holdMs = 4000 } = {}) {
  const agent = await startAgent(bin, dir);
  try {
    makeFile(join(agent.filesDir, 'big.bin'), 20e6);
    const token = await agent.login();
    const idle = await idleOf(agent);
    const one = `GET /api/download?filepath=big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`;
    const socks = [];
    const r = await sampled(agent.child.pid, async () => {
      for (let i = 0; i < connections; i++) {
        const s = connect(agent.port, '127.0.0.1');
        s.on('error', () => {});
        s.pause(); // never read
        s.write(one.repeat(requests));
        socks.push(s);
      }
      await sleep(holdMs / 2);
      const health = await curlTo('/dev/null', ['--max-time', '10', `${agent.url}/api/v1/health`]);
      const status = await curlTo('/dev/null', [
        '--max-time',
        '10',
        '-H',
        `Authorization: Bearer ${token}`,
        `${agent.url}/api/v1/devicestatus/get`,
      ]);
      await sleep(holdMs / 2);
      return { health, status };
    });
    for (const s of socks) s.destroy();
    await sleep(5000);
    const afterStats = procStats(agent.child.pid);
    const after = afterStats.rssKb;
    return {
      anonAfterOverIdle: mbOf(afterStats.anonKb - idle.anonKb),
      overIdle: mbOf(r.maxRssKb - idle.rssKb),
      fdsOverIdle: r.maxFds - idle.fds,
      others: r.value,
      afterOverIdle: mbOf(after - idle.rssKb),
      afterFds: fds(agent.child.pid) - idle.fds,
      idle: mbOf(idle.rssKb),
    };
  } finally {
    await agent.stop();
  }
}

/**
 * `clients` concurrent uploads of `src`: peak RSS over idle (VmHWM), RSS 5 s after the last
 * ended, and whether each stored a byte-identical file.
 */
export async function uploadFigure(bin, dir, src, { clients = 1, tls = false } = {}) {
  const agent = await startAgent(bin, dir, { tls });
  try {
    const token = await agent.login();
    const idle = await idleOf(agent);
    resetPeak(agent.child.pid);
    const codes = await Promise.all(
      Array.from({ length: clients }, (_, i) => curlTo('/dev/null', uploadArgs(agent.url, token, src, `up-${i}.bin`))),
    );
    const peak = procStats(agent.child.pid).hwmKb;
    await sleep(5000);
    const after = procStats(agent.child.pid).rssKb;
    const want = readFileSync(src);
    const identical = codes.every((c, i) => c === 200 && readFileSync(join(agent.filesDir, `up-${i}.bin`)).equals(want));
    return { overIdle: mbOf(peak - idle.rssKb), afterOverIdle: mbOf(after - idle.rssKb), identical, idle: mbOf(idle.rssKb) };
  } finally {
    await agent.stop();
  }
}

/** A login then 8 concurrent uploads with the agent in a memory cgroup of `limitMb`. */
export async function cgroupFigure(bin, dir, src, { limitMb = 128, clients = 8 } = {}) {
  const root = memoryCgroupRoot();
  if (!root) return null;
  const cg = join(root, `device-agent-bench-${process.pid}-${Date.now()}`);
  mkdirSync(cg);
  try {
    writeFileSync(join(cg, 'memory.limit_in_bytes'), String(limitMb * 1024 * 1024));
    const agent = await startAgent(bin, dir, { cgroup: cg });
    try {
      const token = await agent.login();
      const codes = await Promise.all(
        Array.from({ length: clients }, (_, i) => curlTo('/dev/null', uploadArgs(agent.url, token, src, `cg-${i}.bin`))),
      );
      const want = readFileSync(src);
      const ok = codes.filter((c, i) => c === 200 && readFileSync(join(agent.filesDir, `cg-${i}.bin`)).equals(want)).length;
      const maxUsage = Number(readFileSync(join(cg, 'memory.max_usage_in_bytes'), 'utf8')) / 2 ** 20;
      const failcnt = Number(readFileSync(join(cg, 'memory.failcnt'), 'utf8'));
      return { ok, clients, alive: agent.alive(), maxUsageMb: maxUsage, failcnt, codes };
    } finally {
      await agent.stop();
    }
  } finally {
    try {
      execFileSync('rmdir', [cg]);
    } catch {
      /* a process still in it: left for the next boot */
    }
  }
}

const med = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length ? s[(s.length - 1) >> 1] : NaN;
};

/**
 * The bench's memory rows (npm run bench): each figure on fresh agents, `rounds` times,
 * over the agent's own idle RSS. `src`: the upload source file (`mb` MB).
 */
export async function memoryRows({ bin, dir, src, mb, rounds, log = () => {} }) {
  let n = 0;
  const fresh = () => join(dir, `m${n++}`);
  const login = [];
  const pipe = { rss: [], fds: [], after: [], answered: true };
  const up1 = [];
  const up8 = { peak: [], after: [], tls: [], tlsAfter: [], identical: true };
  for (let i = 0; i < rounds; i++) {
    log(`memory round ${i + 1}/${rounds}: login, pipelining, uploads`);
    login.push((await loginFigure(bin, fresh())).overIdle);
    const p = await pipeliningFigure(bin, fresh());
    pipe.rss.push(p.overIdle);
    pipe.fds.push(p.fdsOverIdle);
    pipe.after.push(p.afterOverIdle);
    pipe.answered &&= p.others.health === 200 && p.others.status === 200;
    const u1 = await uploadFigure(bin, fresh(), src);
    up1.push(u1.overIdle);
    const u8 = await uploadFigure(bin, fresh(), src, { clients: 8 });
    const t8 = await uploadFigure(bin, fresh(), src, { clients: 8, tls: true });
    up8.peak.push(u8.overIdle);
    up8.after.push(u8.afterOverIdle);
    up8.tls.push(t8.overIdle);
    up8.tlsAfter.push(t8.afterOverIdle);
    up8.identical &&= u1.identical && u8.identical && t8.identical;
  }
  log('a login and 8 uploads in a 128 MB memory cgroup');
  const cg = await cgroupFigure(bin, fresh(), src);
  const rows = [
    { figure: 'peak RSS during a login, over idle', unit: 'MB', agent: login, target: '≤ +24 MB', ok: med(login) <= 24 },
    {
      figure: `5 connections × 500 pipelined 20 MB downloads, never read: RSS over idle${pipe.answered ? '' : ' (others NOT answered)'}`,
      unit: 'MB',
      agent: pipe.rss,
      target: '≤ +40 MB, others answered',
      ok: med(pipe.rss) <= 40 && pipe.answered,
    },
    { figure: 'the same: descriptors over idle', unit: 'fds', agent: pipe.fds, target: '≤ +64', ok: med(pipe.fds) <= 64, digits: 0 },
    { figure: 'the same: RSS over idle 5 s after the attackers closed', unit: 'MB', agent: pipe.after, target: 'report', ok: true },
    { figure: `peak RSS, one ${mb} MB upload, over idle`, unit: 'MB', agent: up1, target: '≤ +12 MB', ok: med(up1) <= 12 },
    {
      figure: `peak RSS, 8 concurrent ${mb} MB uploads, over idle${up8.identical ? '' : ' (files NOT identical)'}`,
      unit: 'MB',
      agent: up8.peak,
      target: '≤ +40 MB',
      ok: med(up8.peak) <= 40 && up8.identical,
    },
    {
      figure: `peak RSS, 8 concurrent ${mb} MB uploads over TLS, over idle`,
      unit: 'MB',
      agent: up8.tls,
      target: '≤ +40 MB',
      ok: med(up8.tls) <= 40,
    },
    {
      figure: 'RSS 5 s after the last of those uploads, over idle (plain)',
      unit: 'MB',
      agent: up8.after,
      target: '≤ +8 MB',
      ok: med(up8.after) <= 8,
    },
    {
      figure: 'RSS 5 s after the last of those uploads, over idle (TLS)',
      unit: 'MB',
      agent: up8.tlsAfter,
      target: '≤ +8 MB',
      ok: med(up8.tlsAfter) <= 8,
    },
  ];
  if (cg) {
    rows.push({
      figure: `a login then 8 concurrent ${mb} MB uploads, agent in a 128 MB cgroup: uploads stored${cg.alive ? '' : ' (agent KILLED)'}`,
      unit: `of 8 (max usage ${cg.maxUsageMb.toFixed(0)} MB)`,
      agent: [cg.ok],
      target: '8/8, agent alive',
      ok: cg.ok === 8 && cg.alive,
      digits: 0,
    });
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const bin = process.env.AGENT_BIN ?? join(root, 'dist/device-agent');
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(`--${name}`);
    return i === -1 ? dflt : process.argv[i + 1];
  };
  const mb = Number(arg('mb', 50));
  const only = arg('only', 'login,pipelining,upload1,upload8,upload8tls,cgroup').split(',');
  const base = mkdtempSync(join(tmpdir(), 'da-mem-'));
  const src = join(base, 'src.bin');
  makeFile(src, mb * 1e6);
  let n = 0;
  const fresh = () => join(base, `a${n++}`);
  const f = (x) => x.toFixed(1);
  try {
    if (only.includes('login')) {
      const r = await loginFigure(bin, fresh());
      console.log(`login: peak +${f(r.overIdle)} MB over idle ${f(r.idle)} MB`);
    }
    if (only.includes('pipelining')) {
      const r = await pipeliningFigure(bin, fresh());
      console.log(
        `pipelining 5x500: peak +${f(r.overIdle)} MB, +${r.fdsOverIdle} fds; others ${JSON.stringify(r.others)}; 5 s after close +${f(r.afterOverIdle)} MB (anonymous +${f(r.anonAfterOverIdle)}), +${r.afterFds} fds`,
      );
    }
    if (only.includes('upload1')) {
      const r = await uploadFigure(bin, fresh(), src);
      console.log(`1 upload: peak +${f(r.overIdle)} MB; 5 s after +${f(r.afterOverIdle)} MB; identical ${r.identical}`);
    }
    if (only.includes('upload8')) {
      const r = await uploadFigure(bin, fresh(), src, { clients: 8 });
      console.log(`8 uploads: peak +${f(r.overIdle)} MB; 5 s after +${f(r.afterOverIdle)} MB; identical ${r.identical}`);
    }
    if (only.includes('upload8tls')) {
      const r = await uploadFigure(bin, fresh(), src, { clients: 8, tls: true });
      console.log(`8 uploads TLS: peak +${f(r.overIdle)} MB; 5 s after +${f(r.afterOverIdle)} MB; identical ${r.identical}`);
    }
    if (only.includes('cgroup')) {
      const r = await cgroupFigure(bin, fresh(), src);
      console.log(
        r
          ? `cgroup 128 MB: ${r.ok}/${r.clients} ok, alive ${r.alive}, max usage ${f(r.maxUsageMb)} MB, failcnt ${r.failcnt}, codes ${r.codes}`
          : 'cgroup: no memory cgroup here',
      );
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
