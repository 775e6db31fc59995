// Starting and reading the contenders: the agent executable, nginx, the baseline server.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * CPU seconds of a process: its threads' run time in ns from /proc/PID/task/TID/schedstat
 * (utime + stime count in 10 ms ticks: too coarse for nginx sending 50 MB in ~5 ms of CPU).
 */
function cpuSeconds(pid) {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      /* thread gone */
    }
  }
  return ns / 1e9;
}

/** RSS, peak RSS (kB) and CPU seconds of a process, from /proc. */
export function procStats(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM'), anonKb: kb('RssAnon'), cpuS: cpuSeconds(pid) };
}

/**
 * Resident kB of the process's executable code (its r-x mappings of `bin`, from smaps):
 * pages of the binary's text faulted in, such as V8's optimizing compiler (~5.5 MB) the
 * first time any function gets hot. Clean, shared, dropped by the kernel under pressure.
 */
export function codeRssKb(pid, bin) {
  const file = realpathSync(bin); // as smaps names the mapping
  let total = 0;
  let inCode = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) inCode = head[1].includes('x') && head[2] === file;
    else if (inCode) total += Number(/^Rss:\s+(\d+)/.exec(line)?.[1] ?? 0);
  }
  return total;
}

/** Resets VmHWM so the next read is the peak from now on (proc(5), clear_refs 5). */
export function resetPeak(pid) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

function waitFor(child, regex, what) {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${out}`)), 15_000);
    const on = (d) => {
      out += d;
      const m = regex.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout.on('data', on);
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited ${code}:\n${out}`));
    });
  });
}

/** The lines the agent and the baseline server print once listening; group 1 is the port. */
export const AGENT_LISTENING = /listening on http:\/\/[^:]+:(\d+)/;
export const BASELINE_LISTENING = /^listening (\d+)/m;

/**
 * The port a child printed into `file` (the line `pattern` matches), read every `everyMs`;
 * throws with the file's text if the child exits or `timeoutMs` passes first.
 */
export async function portIn(file, pattern, child, { timeoutMs = 6_000, everyMs = 20 } = {}) {
  for (const until = Date.now() + timeoutMs; ; ) {
    const port = Number(pattern.exec(readFileSync(file, 'utf8'))?.[1]);
    if (port) return port;
    if (child.exitCode !== null || Date.now() > until)
      throw new Error(`${child.spawnargs.join(' ')} did not start:\n${readFileSync(file, 'utf8')}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * The benches' agent config: loopback on port 0, files/, the users file and JWT secret beside
 * the config, no audio device; `extra`'s keys on top (e.g. `{ tls: {...} }`, `{ outbox: {...} }`).
 */
export function baseConfig(extra = {}) {
  return {
    host: '127.0.0.1',
    port: 0,
    baseDir: 'files',
    usersFile: 'users.json',
    jwtSecretFile: 'jwt.secret',
    audio: { device: 'null' },
    ...extra,
  };
}

/** `extra`: config keys on top of the bench's (e.g. `{ tls: {...} }`, `{ metrics: { enabled: false } }`). */
/** A login token of a bench user (each is made with the password `bench-password`). */
export async function loginToken(url, username = 'bench') {
  const res = await fetch(`${url}/api/v1/agentusers/loginusertoagent`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password: 'bench-password' }),
  });
  return (await res.json()).token;
}

export async function startAgentBin(bin, dir, extra = {}, env = {}) {
  mkdirSync(join(dir, 'files'), { recursive: true });
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify(baseConfig(extra)));
  if (!existsSync(join(dir, 'users.json'))) {
    execFileSync(bin, ['user', 'add', 'bench', '--config', config], { input: 'bench-password\n', stdio: ['pipe', 'ignore', 'inherit'] });
    // A second user: one user holds at most half of the stream slots (docs/api.md, "Stream slots").
    execFileSync(bin, ['user', 'add', 'bench2', '--config', config], { input: 'bench-password\n', stdio: ['pipe', 'ignore', 'inherit'] });
  }
  // The log goes to a file, as with StandardOutput=append: (the agent still writes every
  // line); a pipe would make this harness spend the shared CPU reading it.
  const logFile = join(dir, `agent-${process.hrtime.bigint()}.log`);
  const fd = openSync(logFile, 'w');
  const child = spawn(bin, ['serve', '--config', config], { stdio: ['ignore', fd, 'inherit'], env: { ...process.env, ...env } });
  closeSync(fd);
  const port = await portIn(logFile, AGENT_LISTENING, child);
  const url = `http://127.0.0.1:${port}`;
  const login = (username) => loginToken(url, username);
  const token = await login('bench');
  /** A login token of the second user, for more streams than one user may hold. */
  const secondToken = () => login('bench2');
  /** SIGTERM; resolves once the agent has exited. */
  const stop = () =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise((resolve) => {
          child.once('exit', resolve);
          child.kill('SIGTERM');
        });
  return { child, url, token, secondToken, config, filesDir: join(dir, 'files'), stop };
}

/**
 * nginx serving `root` on loopback. `ssl`: { cert, key } serves HTTPS instead, with one
 * worker and no session cache or tickets (every handshake a full one), as bench/https.mjs
 * measures it.
 */
export async function startNginx(dir, root, ssl) {
  const name = ssl ? 'nginx-ssl' : 'nginx';
  const conf = join(dir, `${name}.conf`);
  mkdirSync(join(dir, 'nginx'), { recursive: true });
  const port = 20000 + Math.floor(Math.random() * 20000);
  const server = ssl
    ? `listen 127.0.0.1:${port} ssl; ssl_certificate ${ssl.cert}; ssl_certificate_key ${ssl.key};
    ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache off; ssl_session_tickets off;`
    : `listen 127.0.0.1:${port};`;
  writeFileSync(
    conf,
    `
${process.getuid() === 0 ? 'user root;' : ''}
worker_processes ${ssl ? 1 : 'auto'};
pid ${dir}/${name}.pid;
error_log ${dir}/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  client_body_temp_path ${dir}/nginx/body;
  proxy_temp_path ${dir}/nginx/proxy;
  fastcgi_temp_path ${dir}/nginx/fastcgi;
  uwsgi_temp_path ${dir}/nginx/uwsgi;
  scgi_temp_path ${dir}/nginx/scgi;
  server { ${server} root ${root}; }
}`,
  );
  const child = spawn('/usr/sbin/nginx', ['-c', conf, '-p', dir, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = `${ssl ? 'https' : 'http'}://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if (ssl) execFileSync('curl', ['-sk', '-o', '/dev/null', `${url}/`]);
      else await fetch(`${url}/`);
      return { child, url, stop: () => child.kill('SIGQUIT') };
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${name} did not start`);
}

export async function startBaseline(node, script, statusFile, sinkDir) {
  const child = spawn(node, [script, statusFile, sinkDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  const m = await waitFor(child, BASELINE_LISTENING, 'baseline server');
  return { child, url: `http://127.0.0.1:${m[1]}`, stop: () => child.kill('SIGTERM') };
}

/**
 * Drops an executable's pages from the page cache (dd's nocache: posix_fadvise DONTNEED on
 * this one file), as after a reboot. The file is synced first: DONTNEED leaves dirty pages,
 * so right after a build most of the executable stayed cached (and an idle agent measured
 * 1.8 MB less than after a reboot). False when dd cannot (a cold figure is then left out).
 */
export function evictFromPageCache(file) {
  try {
    execFileSync('sync', [file]);
    execFileSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none']);
    return true;
  } catch {
    return false;
  }
}
