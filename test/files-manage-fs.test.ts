// Managing files where the file system fights back: a directory swapped for a link to the
// outside while requests run (a loop of races), a move onto another file system (a real
// tmpfs mounted inside the base: copy, rename into place, source removed), and a full one.
// After each case the tree outside the base is compared byte for byte with what it was.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { manage, type Call } from './helpers/manage.ts';
import { eventually } from './helpers/proc.ts';
import { plant, type Planted } from './helpers/planted.ts';

/** The agent's descriptors of files and directories (sockets and pipes come and go with connections). */
function fileFds(pid: number): string[] {
  const out: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith('/')) out.push(target);
    } catch {
      /* closed meanwhile */
    }
  }
  return out.sort();
}

type Ctx = { agent: TestAgent; call: Call; planted: Planted; before: string[]; mounts: string[] };

function setup(name: string) {
  const s = suite<Ctx>(name);
  s.before(async (ctx) => {
    ctx.agent = await startAgent({ users: [{ username: 'op', password: 'operator pass', role: 'operator' }] });
    ctx.call = manage(ctx.agent.url, await ctx.agent.login('op', 'operator pass'));
    ctx.planted = plant(ctx.agent.dir);
    // What a redirected change would hit: the same names as inside, outside.
    mkdirSync(join(ctx.agent.dir, 'outside/victim/d'), { recursive: true });
    writeFileSync(join(ctx.agent.dir, 'outside/victim/f.txt'), 'OUTSIDE f');
    writeFileSync(join(ctx.agent.dir, 'outside/victim/d/g.txt'), 'OUTSIDE g');
    ctx.before = ctx.planted.outsideSnapshot();
    ctx.mounts = [];
  });
  s.after.each((ctx) => {
    assert.equal(ctx.planted.outsideSnapshot(), ctx.before, 'nothing outside the base changed');
  });
  s.after(async (ctx) => {
    for (const m of ctx.mounts) execFileSync('umount', ['-l', m]);
    await ctx.agent?.cleanup();
  });
  return s;
}

/** A tmpfs of `options` mounted at base/name (we run as root, as the package tests do). */
function mountTmpfs(ctx: Ctx, name: string, options: string): string {
  const dir = join(ctx.agent.baseDir, name);
  mkdirSync(dir);
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir]);
  ctx.mounts.push(dir);
  return dir;
}

// ---------------------------------------------------------------------------------------
const race = setup('files manage: a directory swapped for a link while requests run');

race('no delete, move or mkdir is ever redirected outside the base', async (ctx) => {
  const base = ctx.agent.baseDir;
  const r = join(base, 'r');
  let n = 0;
  const makeReal = () => {
    const tmp = join(base, `.real-${n++}`);
    mkdirSync(join(tmp, 'd'), { recursive: true });
    writeFileSync(join(tmp, 'f.txt'), 'inside f');
    writeFileSync(join(tmp, 'd/g.txt'), 'inside g');
    return tmp;
  };
  renameSync(makeReal(), r);
  const fdsBefore = fileFds(ctx.agent.child.pid!);
  let link = false;
  // Between a real directory and a link to the outside twin, as fast as the event loop allows.
  const timer = setInterval(() => {
    try {
      if (link) {
        unlinkSync(r);
        renameSync(makeReal(), r);
      } else {
        renameSync(r, join(base, `.old-${n++}`));
        symlinkSync('../outside/victim', r);
      }
      link = !link;
    } catch {
      // A request removed or moved `r` meanwhile: start again from a real directory.
      try {
        rmSync(r, { recursive: true, force: true });
        renameSync(makeReal(), r);
        link = false;
      } catch {
        /* next tick */
      }
    }
  }, 1);
  const seen = new Map<number, number>();
  try {
    for (let round = 0; round < 60; round++) {
      const answers = await Promise.all([
        ctx.call.del('r/f.txt'),
        ctx.call.del('r/d', 'recursive=true'),
        ctx.call.del('r', 'recursive=true'),
        ctx.call.move({ from: 'r/f.txt', to: `moved-${round}.txt` }),
        ctx.call.move({ from: 'r/d', to: `movedd-${round}` }),
        ctx.call.move({ from: `moved-${round}.txt`, to: 'r/back.txt' }),
        ctx.call.mkdir(`r/new-${round}/x`),
      ]);
      for (const a of answers) {
        seen.set(a.status, (seen.get(a.status) ?? 0) + 1);
        assert.ok([200, 201, 204, 403, 404, 409].includes(a.status), `${a.status} ${a.text}`);
      }
      assert.equal(ctx.planted.outsideSnapshot(), ctx.before, `round ${round}`);
    }
  } finally {
    clearInterval(timer);
  }
  // The race was real: both outcomes happened.
  assert.ok((seen.get(403) ?? 0) > 0 && (seen.get(204) ?? 0) > 0, JSON.stringify([...seen]));
  assert.is(readFileSync(join(ctx.agent.dir, 'outside/victim/f.txt'), 'utf8'), 'OUTSIDE f');
  // Every directory opened on the way was closed, whatever the race made of it.
  const pid = ctx.agent.child.pid!;
  assert.ok(
    await eventually(() => fileFds(pid).join() === fdsBefore.join(), 3000),
    `${fileFds(pid).join('\n')}\nbefore:\n${fdsBefore.join('\n')}`,
  );
});

// ---------------------------------------------------------------------------------------
const exdev = setup('files manage: moves across file systems');

exdev('a file moves onto a tmpfs inside the base and back: whole, source gone, no temp file', async (ctx) => {
  const mnt = mountTmpfs(ctx, 'mnt', 'size=4m');
  const data = randomBytes(1536 * 1024);
  writeFileSync(join(ctx.agent.baseDir, 'big.bin'), data, { mode: 0o640 });
  const r = await ctx.call.move({ from: 'big.bin', to: 'mnt/big.bin' });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json, { path: 'mnt/big.bin' });
  assert.ok(readFileSync(join(mnt, 'big.bin')).equals(data));
  assert.is(statSync(join(mnt, 'big.bin')).mode & 0o777, 0o640, 'mode kept');
  assert.is(existsSync(join(ctx.agent.baseDir, 'big.bin')), false);
  assert.equal(readdirSync(mnt), ['big.bin']);
  assert.is((await ctx.call.move({ from: 'mnt/big.bin', to: 'back.bin' })).status, 200);
  assert.ok(readFileSync(join(ctx.agent.baseDir, 'back.bin')).equals(data));
  assert.equal(readdirSync(mnt), []);
  // Over an existing file, only with overwrite.
  writeFileSync(join(mnt, 'old.bin'), 'old');
  await ctx.call.expect(ctx.call.move({ from: 'back.bin', to: 'mnt/old.bin' }), 409, 'mnt/old.bin already exists');
  assert.is((await ctx.call.move({ from: 'back.bin', to: 'mnt/old.bin', overwrite: true })).status, 200);
  assert.ok(readFileSync(join(mnt, 'old.bin')).equals(data));
  assert.equal(readdirSync(mnt), ['old.bin']);
});

exdev('a directory tree moves across with its links as links, and the mount point itself is refused as a whole', async (ctx) => {
  const mnt = mountTmpfs(ctx, 'mnt2', 'size=4m');
  const tree = join(ctx.agent.baseDir, 'tree');
  mkdirSync(join(tree, 'a/b'), { recursive: true });
  writeFileSync(join(tree, 'a/b/c.txt'), 'c');
  writeFileSync(join(tree, 'top.txt'), 'top');
  symlinkSync('../../outside/secret.txt', join(tree, 'outLink'));
  symlinkSync('top.txt', join(tree, 'inLink'));
  const r = await ctx.call.move({ from: 'tree', to: 'mnt2/tree' });
  assert.is(r.status, 200, r.text);
  assert.is(readFileSync(join(mnt, 'tree/a/b/c.txt'), 'utf8'), 'c');
  assert.is(readFileSync(join(mnt, 'tree/top.txt'), 'utf8'), 'top');
  assert.is(readlinkSync(join(mnt, 'tree/outLink')), '../../outside/secret.txt');
  assert.is(readlinkSync(join(mnt, 'tree/inLink')), 'top.txt');
  assert.is(existsSync(tree), false);
  assert.equal(readdirSync(mnt), ['tree']);
  // A mount point stays where it is.
  await ctx.call.expect(ctx.call.move({ from: 'mnt2', to: 'elsewhere' }), 409, 'mnt2 is in use (a mount point)');
  await ctx.call.expect(ctx.call.del('mnt2'), 409, 'mnt2 is in use (a mount point)');
  // A FIFO inside a directory cannot be copied: nothing arrives, the source stays.
  mkdirSync(join(ctx.agent.baseDir, 'withFifo'));
  writeFileSync(join(ctx.agent.baseDir, 'withFifo/f.txt'), 'f');
  execFileSync('mkfifo', [join(ctx.agent.baseDir, 'withFifo/p')]);
  await ctx.call.expect(ctx.call.move({ from: 'withFifo', to: 'mnt2/withFifo' }), 403, 'file is not a regular file');
  assert.equal(readdirSync(mnt), ['tree']);
  assert.equal(readdirSync(join(ctx.agent.baseDir, 'withFifo')).sort(), ['f.txt', 'p']);
});

exdev('a full file system: 507, nothing half-written, the source intact; delete still works', async (ctx) => {
  const small = mountTmpfs(ctx, 'small', 'size=1m');
  const data = randomBytes(2 * 1024 * 1024);
  writeFileSync(join(ctx.agent.baseDir, 'huge.bin'), data);
  await ctx.call.expect(ctx.call.move({ from: 'huge.bin', to: 'small/huge.bin' }), 507, 'no space left on the device');
  assert.equal(readdirSync(small), []);
  assert.ok(readFileSync(join(ctx.agent.baseDir, 'huge.bin')).equals(data));
  mkdirSync(join(ctx.agent.baseDir, 'two'));
  writeFileSync(join(ctx.agent.baseDir, 'two/1.bin'), data.subarray(0, 700 * 1024));
  writeFileSync(join(ctx.agent.baseDir, 'two/2.bin'), data.subarray(0, 700 * 1024));
  await ctx.call.expect(ctx.call.move({ from: 'two', to: 'small/two' }), 507, 'no space left on the device');
  assert.equal(readdirSync(small), []);
  assert.equal(readdirSync(join(ctx.agent.baseDir, 'two')).sort(), ['1.bin', '2.bin']);
  // Out of inodes: mkdir is refused alike.
  const tiny = mountTmpfs(ctx, 'tiny', 'size=1m,nr_inodes=2');
  mkdirSync(join(tiny, 'only'));
  await ctx.call.expect(ctx.call.mkdir('tiny/more'), 507, 'no space left on the device');
  // Filling it up from the API, then freeing it again.
  writeFileSync(join(small, 'fill.bin'), Buffer.alloc(1024 * 1024));
  assert.is((await ctx.call.del('small/fill.bin')).status, 204);
  assert.is((await ctx.call.del('tiny/only')).status, 204);
  assert.is((await ctx.call.mkdir('tiny/more')).status, 201);
});

race.run();
exdev.run();
