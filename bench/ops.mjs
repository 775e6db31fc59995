// Operations figures (docs/operations.md#restarts-and-upgrades-refuse-no-connection): what clients see across a restart with the listening socket
// in systemd's descriptor store against a plain restart, and how long a SIGHUP reload takes.
// systemd's side is test/helpers/fake-systemd.c (gcc), so no systemd as PID 1 is needed.
//   node bench/ops.mjs [--rounds N]     prints the rows as a Markdown table
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, table } from './report.mjs';
import { BIN, inTempDir, numberArg, ranAlone } from './alone.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Back-to-back requests on fresh connections from `clients` loops: failures and the slowest answer. */
function hammer(port, clients = 4) {
  let running = true;
  const tally = { ok: 0, failed: 0, slowestMs: 0 };
  const one = () =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const done = (ok) => {
        if (ok) tally.ok++;
        else tally.failed++;
        tally.slowestMs = Math.max(tally.slowestMs, performance.now() - t0);
        resolve();
      };
      get({ host: '127.0.0.1', port, path: '/api/v1/health', agent: false, headers: { Connection: 'close' } }, (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode === 200));
      }).on('error', () => done(false));
    });
  const loops = Array.from({ length: clients }, async () => {
    while (running) await one();
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return tally;
    },
  };
}

/** The agent under fake-systemd (bench/ops.mjs's own copy of systemd's notify side). */
function supervised(fake, bin, config) {
  let out = '';
  const child = spawn(fake, [join(dirname(config), 'notify.sock'), bin, 'serve', '--config', config], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdout.on('data', (d) => {
    out += d;
  });
  const readies = () => (out.match(/"READY=1/g) ?? []).length;
  const until = async (test, ms = 20_000) => {
    for (const end = Date.now() + ms; !test(); await sleep(10)) if (Date.now() > end) throw new Error(`timed out:\n${out}`);
  };
  return {
    readies,
    until,
    out: () => out,
    command: (line) => child.stdin.write(`${line}\n`),
    port: () => Number(/READY=1\\nSTATUS=serving http:\/\/[^:]+:(\d+)/.exec(out)[1]),
    quit: async () => {
      child.stdin.end('quit\n');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** Writes `dir`/config.json (and files/) for `port`; returns the config's path. */
function configIn(dir, port = 0) {
  mkdirSync(join(dir, 'files'), { recursive: true });
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({ host: '127.0.0.1', port, baseDir: 'files', usersFile: 'users.json', jwtSecretFile: 'jwt.secret' }),
  );
  return config;
}

/** Failed requests and the slowest answer across one restart, with or without the store. */
async function restartRound(fake, bin, dir, store) {
  const config = configIn(dir);
  const sd = supervised(fake, bin, config);
  await sd.until(() => sd.readies() === 1);
  // A fixed port from now on, as on a device: the one the first start got.
  const port = sd.port();
  configIn(dir, port);
  // Without the store: systemd would close the socket with the old process (stop, then start).
  if (!store) sd.command('drop');
  const load = hammer(port);
  await sleep(300);
  sd.command('restart');
  await sd.until(() => sd.readies() === 2);
  await sleep(300);
  const tally = await load.stop();
  await sd.quit();
  return tally;
}

/** SIGHUP to the "config reloaded" line, milliseconds. */
async function reloadRound(fake, bin, dir) {
  const sd = supervised(fake, bin, configIn(dir));
  await sd.until(() => sd.readies() === 1);
  const t0 = performance.now();
  sd.command('signal 1');
  await sd.until(() => sd.readies() === 2, 5000);
  const ms = performance.now() - t0;
  await sd.quit();
  return ms;
}

export async function opsRows(bin, dir, rounds = 3) {
  mkdirSync(dir, { recursive: true });
  const fake = join(dir, 'fake-systemd');
  execFileSync('cc', ['-O2', '-o', fake, join(root, 'test/helpers/fake-systemd.c')]);
  const kept = [];
  const plain = [];
  const reloads = [];
  for (let i = 0; i < rounds; i++) {
    kept.push(await restartRound(fake, bin, join(dir, `kept-${i}`), true));
    plain.push(await restartRound(fake, bin, join(dir, `plain-${i}`), false));
    reloads.push(await reloadRound(fake, bin, join(dir, `reload-${i}`)));
  }
  return [
    {
      figure: "failed requests across a restart (4 clients, fresh connections), socket kept in systemd's store",
      unit: '',
      agent: kept.map((t) => t.failed),
      baseline: plain.map((t) => t.failed),
      baselineName: 'plain restart',
      target: '0',
      ok: kept.every((t) => t.failed === 0),
      digits: 0,
    },
    {
      figure: 'slowest answer across that restart',
      unit: 'ms',
      agent: kept.map((t) => t.slowestMs),
      baseline: plain.map((t) => t.slowestMs),
      baselineName: 'plain restart',
      target: 'report',
      ok: true,
      digits: 0,
    },
    {
      figure: 'SIGHUP → RELOADING=1 … READY=1 (config and drop-ins re-read, new app built)',
      unit: 'ms',
      agent: reloads,
      target: 'report',
      ok: true,
      digits: 1,
    },
  ];
}

if (ranAlone(import.meta.url)) {
  await inTempDir('da-bench-ops-', async (dir) => {
    const rows = await opsRows(BIN, dir, numberArg('rounds', 3));
    console.log(table(rows));
    console.log(`\n(medians of ${rows[0].agent.length} rounds; ${median(rows[0].baseline)} failed requests in a plain restart)`);
  });
}
