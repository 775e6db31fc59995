// 1 GiB up and down through dagent (HTTPS, pinned): the bytes arrive whole and the client's
// peak resident memory (VmHWM, read from /proc until it exits) stays under 100 MB.
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dagentProcess, runtimes, startClientAgent, tempHome, tokenProfile, type ClientAgent } from './helpers/dagent.ts';

const SIZE = 1024 * 1024 * 1024;
const LIMIT_KB = 100 * 1000;

type Ctx = { agent: ClientAgent; home: string };
const big = suite<Ctx>('dagent: 1 GiB transfers in flat memory');
big.before(async (ctx) => {
  ctx.agent = await startClientAgent(true, { config: { maxFileBytes: 2 * SIZE } });
  ctx.home = tempHome();
  await tokenProfile(ctx.agent, ctx.home);
});
big.after(async (ctx) => {
  await ctx.agent?.cleanup();
  if (ctx.home) rmSync(ctx.home, { recursive: true, force: true });
});

/** 1 MiB of random bytes repeated, each MiB stamped with its index: a misplaced block shows in the hash. */
function writeBig(file: string): void {
  const block = randomBytes(1024 * 1024);
  const fd = openSync(file, 'w');
  for (let i = 0; i < SIZE / block.length; i++) {
    block.writeUInt32BE(i, 0);
    writeSync(fd, block);
  }
  closeSync(fd);
}

async function sha256(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Runs dagent and returns its exit code and peak RSS in kB (VmHWM, sampled until it exits). */
async function peakRun(home: string, args: string[], node: string): Promise<{ code: number | null; peakKb: number; stderr: string }> {
  const child = dagentProcess(args, { home, node });
  child.stdin!.end();
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  let peakKb = 0;
  const sample = () => {
    try {
      const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) peakKb = Math.max(peakKb, Number(m[1]));
    } catch {
      // exited between two samples: the last sample stands
    }
  };
  const timer = setInterval(sample, 20);
  child.stdout!.on('end', sample);
  const code = await new Promise<number | null>((r) =>
    child.on('exit', (c) => {
      sample();
      r(c);
    }),
  );
  clearInterval(timer);
  return { code, peakKb, stderr };
}

big(
  'put then get of 1 GiB: identical bytes, client peak RSS under 100 MB each way (each Node.js runtime at hand)',
  async ({ agent, home }) => {
    const local = join(home, 'big.bin');
    writeBig(local);
    mkdirSync(join(agent.baseDir, 'up'));
    const want = await sha256(local);
    for (const node of runtimes()) {
      const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
      let t0 = Date.now();
      const up = await peakRun(home, ['put', 'big.bin', 'up/big.bin'], node);
      const upMs = Date.now() - t0;
      assert.is(up.code, 0, up.stderr);
      assert.ok(up.peakKb > 0 && up.peakKb < LIMIT_KB, `${version} put: peak RSS ${up.peakKb} kB`);
      assert.is(await sha256(join(agent.baseDir, 'up/big.bin')), want, 'the uploaded file differs');

      t0 = Date.now();
      const down = await peakRun(home, ['get', 'up/big.bin', 'back.bin'], node);
      const downMs = Date.now() - t0;
      assert.is(down.code, 0, down.stderr);
      assert.ok(down.peakKb > 0 && down.peakKb < LIMIT_KB, `${version} get: peak RSS ${down.peakKb} kB`);
      assert.is(await sha256(join(home, 'back.bin')), want, 'the downloaded file differs');
      rmSync(join(home, 'back.bin'));
      console.log(
        `  ${version}: peak RSS put ${(up.peakKb / 1000).toFixed(1)} MB (${upMs} ms), get ${(down.peakKb / 1000).toFixed(1)} MB (${downMs} ms)`,
      );
    }
  },
);

big.run();
