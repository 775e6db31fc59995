// The cost of one password hash with each candidate setting: wall time (median of
// --runs) and the rise of peak RSS (VmHWM) over the process before it, each setting in
// a fresh process. Run by any Node: `node bench/hash-cost.mjs`, or the embedded one,
// or the arm64 one under qemu-aarch64-static (see docs/decisions.md).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';

const settings = {
  'scrypt N=2^17 r=8 p=1': { kind: 'scrypt', N: 2 ** 17, r: 8, p: 1 },
  'scrypt N=2^14 r=8 p=5': { kind: 'scrypt', N: 2 ** 14, r: 8, p: 5 },
  'argon2id m=19456 t=2 p=1': { kind: 'argon2id', m: 19456, t: 2, p: 1 },
};

const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;

function once(s) {
  const salt = crypto.randomBytes(16);
  return new Promise((resolve, reject) => {
    const done = (err) => (err ? reject(err) : resolve());
    if (s.kind === 'scrypt') {
      crypto.scrypt('correct horse battery staple', salt, 32, { N: s.N, r: s.r, p: s.p, maxmem: 256 * 2 ** 20 }, done);
    } else {
      crypto.argon2(
        'argon2id',
        { message: 'correct horse battery staple', nonce: salt, parallelism: s.p, tagLength: 32, memory: s.m, passes: s.t },
        done,
      );
    }
  });
}

if (process.argv[2] === '--child') {
  const s = settings[process.argv[3]];
  const runs = Number(process.argv[4]);
  if (s.kind === 'argon2id' && typeof crypto.argon2 !== 'function') {
    console.log(JSON.stringify({ unavailable: true }));
  } else {
    const before = hwm();
    const times = [];
    for (let i = 0; i < runs; i++) {
      const t = process.hrtime.bigint();
      await once(s);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    times.sort((a, b) => a - b);
    console.log(JSON.stringify({ ms: times[times.length >> 1], min: times[0], max: times.at(-1), rise: hwm() - before }));
  }
} else {
  const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 5);
  const prefix = process.argv.includes('--qemu') ? ['qemu-aarch64-static', '-L', '/usr/aarch64-linux-gnu'] : [];
  const node = process.argv.find((a) => a.startsWith('--node='))?.slice(7) ?? process.execPath;
  const cmd = [...prefix, node, fileURLToPath(import.meta.url)];
  console.log(
    `node ${execFileSync(cmd[0], [...cmd.slice(1, -1), '--version'], { encoding: 'utf8' }).trim()}${prefix.length ? ' (qemu-aarch64)' : ''}, ${runs} runs each`,
  );
  for (const name of Object.keys(settings)) {
    const r = JSON.parse(execFileSync(cmd[0], [...cmd.slice(1), '--child', name, String(runs)], { encoding: 'utf8' }));
    console.log(
      r.unavailable
        ? `${name}: not in this Node`
        : `${name}: ${r.ms.toFixed(0)} ms (${r.min.toFixed(0)}-${r.max.toFixed(0)}), peak RSS +${r.rise.toFixed(1)} MB`,
    );
  }
}
