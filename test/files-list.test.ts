// GET /api/v1/files/list (docs/api.md#directory-listing) against a real agent and a real tree: the answer's
// shape and order, the download's confinement texts, links in and out, special files left
// out unopened, hostile paths, a large directory, and a fast-check property on random trees.
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { lstatSync, mkdirSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { bearer } from './helpers/http.ts';
import { plant, runs, SEED } from './helpers/planted.ts';
import { agentChildren, eventually, fdCount } from './helpers/proc.ts';

type Entry = { name: string; type: 'file' | 'directory'; sizeBytes: number | null; modifiedAt: string };
type Listing = { path: string; entries: Entry[]; truncated?: true };
type Ctx = { agent: TestAgent; token: string; sock: Server; fds: number };
const list = suite<Ctx>('files list');

const ask = (ctx: Ctx, query: string, headers = bearer(ctx.token)) =>
  fetch(`${ctx.agent.url}/api/v1/files/list${query === '' ? '' : '?' + query}`, { headers });
const q = (path: string) => 'path=' + encodeURIComponent(path);

async function listing(ctx: Ctx, query: string): Promise<Listing> {
  const res = await ask(ctx, query);
  const text = await res.text();
  assert.is(res.status, 200, text);
  assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.is(res.headers.get('cache-control'), 'no-store');
  return JSON.parse(text) as Listing;
}

async function expectError(ctx: Ctx, query: string, status: number, error: string) {
  const res = await ask(ctx, query);
  assert.is(res.status, status, `${query}: ${status} expected`);
  assert.equal(await res.json(), { error }, query);
}

const names = (l: Listing) => l.entries.map((e) => e.name);

list.before(async (ctx) => {
  ctx.agent = await startAgent();
  ctx.token = await ctx.agent.login();
  plant(ctx.agent.dir);
  const base = ctx.agent.baseDir;
  mkdirSync(join(base, 'order'));
  for (const n of ['b.txt', 'B', 'a', 'é', 'Z.txt', '_x', '10', '9']) writeFileSync(join(base, 'order', n), n);
  for (const n of ['zdir', 'Adir', 'édir']) mkdirSync(join(base, 'order', n));
  execFileSync('mkfifo', [join(base, 'fifo')]);
  execFileSync('mkfifo', [join(base, 'sub/fifo2')]);
  symlinkSync('fifo', join(base, 'fifoLink'));
  ctx.sock = createServer();
  await new Promise<void>((r) => ctx.sock.listen(join(base, 'sock'), r));
  // A device node needs root (CAP_MKNOD), as the package and tmpfs tests do; without it, a FIFO stands in.
  if (process.getuid?.() === 0) execFileSync('mknod', [join(base, 'null-device'), 'c', '1', '3']);
  else execFileSync('mkfifo', [join(base, 'null-device')]);
  writeFileSync(Buffer.from(join(base, 'bad-\xff-name.txt'), 'latin1'), 'not utf-8');
  await (await fetch(`${ctx.agent.url}/api/v1/health`)).arrayBuffer();
  ctx.fds = fdCount(ctx.agent.child.pid!);
});
list.after(async (ctx) => {
  ctx.sock?.close();
  await ctx.agent?.cleanup();
});

list('the base: path "", directories first then byte order, fields as docs/api.md#directory-listing', async (ctx) => {
  const base = ctx.agent.baseDir;
  const t = new Date('2026-01-02T03:04:05.000Z');
  utimesSync(join(base, 'a.txt'), t, t);
  const l = await listing(ctx, '');
  assert.is(l.path, '');
  assert.equal(Object.keys(l), ['path', 'entries']);
  // Links inside are listed as what they point to; everything else planted is left out.
  assert.equal(names(l), ['in', 'inAbs', 'order', 'recordings', 'sub', 'swap', 'a.txt', 'inFile']);
  const a = l.entries.find((e) => e.name === 'a.txt')!;
  assert.equal(a, { name: 'a.txt', type: 'file', sizeBytes: 'inside a\n'.length, modifiedAt: '2026-01-02T03:04:05.000Z' });
  assert.equal(
    l.entries.find((e) => e.name === 'inFile'),
    { ...a, name: 'inFile' },
  );
  const sub = l.entries.find((e) => e.name === 'in')!;
  assert.equal(sub, { name: 'in', type: 'directory', sizeBytes: null, modifiedAt: statSync(join(base, 'sub')).mtime.toISOString() });
  for (const query of ['path=', 'path=.', 'path=sub%2F..', `path=${encodeURIComponent(base)}`, 'path=sub/..', 'fstype=OsFs']) {
    assert.equal(await listing(ctx, query), l, query);
  }
});

list('order: directories first, then names in byte order (upper case before lower, UTF-8 last)', async (ctx) => {
  const l = await listing(ctx, q('order'));
  assert.is(l.path, 'order');
  assert.equal(names(l), ['Adir', 'zdir', 'édir', '10', '9', 'B', 'Z.txt', '_x', 'a', 'b.txt', 'é']);
  assert.equal(
    l.entries.find((e) => e.name === 'é'),
    {
      name: 'é',
      type: 'file',
      sizeBytes: 2,
      modifiedAt: statSync(join(ctx.agent.baseDir, 'order/é')).mtime.toISOString(),
    },
  );
});

list('path is shown relative to the base, lexically normalised, through links that stay inside', async (ctx) => {
  assert.is((await listing(ctx, q('sub/'))).path, 'sub');
  assert.is((await listing(ctx, q('./sub/../sub//'))).path, 'sub');
  const viaLink = await listing(ctx, q('in'));
  assert.is(viaLink.path, 'in');
  assert.equal(viaLink.entries, (await listing(ctx, q('sub'))).entries);
  // sub/up -> .. stays inside: the base again.
  assert.equal(names(await listing(ctx, q('sub/up'))), names(await listing(ctx, '')));
});

list('inside sub: links out (sub/out), up (sub/up, inside) and a FIFO', async (ctx) => {
  const l = await listing(ctx, q('sub'));
  assert.equal(names(l), ['up', 'b.txt', 'secret.txt']);
});

list('a path naming a file is 400 "<path> is not a directory"; special files too', async (ctx) => {
  await expectError(ctx, q('a.txt'), 400, 'a.txt is not a directory');
  await expectError(ctx, q('inFile'), 400, 'inFile is not a directory');
  await expectError(ctx, q('sub/b.txt'), 400, 'sub/b.txt is not a directory');
  // A FIFO is opened without waiting for a writer (O_NONBLOCK), then refused.
  await expectError(ctx, q('fifo'), 400, 'fifo is not a directory');
  await expectError(ctx, q('fifoLink'), 400, 'fifoLink is not a directory');
  await expectError(ctx, q('null-device'), 400, 'null-device is not a directory');
  // A socket cannot be opened at all: the download's text.
  await expectError(ctx, q('sock'), 403, 'file is not a regular file');
});

list("missing directories: 404 with the download's text", async (ctx) => {
  await expectError(ctx, q('nope'), 404, 'file not found at nope');
  await expectError(ctx, q('sub/nope/deeper'), 404, 'file not found at sub/nope/deeper');
  await expectError(ctx, q('a.txt/x'), 404, 'file not found at a.txt/x');
  await expectError(ctx, q('danglingIn'), 404, 'file not found at danglingIn');
  // A component longer than NAME_MAX (ENAMETOOLONG) is missing, not a failure.
  await expectError(ctx, q('x'.repeat(300)), 404, `file not found at ${'x'.repeat(300)}`);
});

list('ways out: traversal, absolute paths, links out (file and directory on the way), loops: 403', async (ctx) => {
  for (const p of [
    '..',
    '../',
    '../outside',
    'sub/../../outside',
    '/etc',
    '/',
    '//etc',
    `${ctx.agent.dir}/outside`,
    `${ctx.agent.dir}/files2`,
    'out',
    'out/',
    'outAbs',
    'outSibling',
    'outFile',
    'sub/out',
    'sub/out/sub',
    'out/sub',
    'outConfig',
    'dangling',
    'danglingDir',
    'loop1',
    'in/../../outside',
    'sub/up/../../..',
  ]) {
    await expectError(ctx, q(p), 403, 'file path is not allowed');
  }
});

list('bad input: NUL, over PATH_MAX, a repeated key, a malformed escape, another fstype, no token', async (ctx) => {
  await expectError(ctx, 'path=sub%00', 400, 'path must not contain NUL');
  await expectError(ctx, q('a/'.repeat(2049)), 400, 'path must be at most 4096 bytes');
  await expectError(ctx, 'path=sub&path=in', 400, 'path must be given once');
  await expectError(ctx, 'path=%zz', 400, 'path has a malformed percent escape');
  await expectError(ctx, 'path=sub&fstype=ExtFs', 412, 'failed to get file system: unknown file system type "ExtFs", only "OsFs" exists');
  const res = await ask(ctx, q('sub'), {});
  assert.is(res.status, 401);
  assert.equal(await res.json(), { error: 'missing bearer token' });
  const post = await fetch(`${ctx.agent.url}/api/v1/files/list`, { method: 'POST', headers: bearer(ctx.token) });
  assert.is(post.status, 405);
  assert.is(post.headers.get('allow'), 'GET, HEAD');
  await post.arrayBuffer();
});

list('a directory of more than 10,000 entries is listed in part, marked truncated', async (ctx) => {
  const big = join(ctx.agent.baseDir, 'big');
  mkdirSync(big);
  // Made asynchronously: a loop of synchronous writes blocks this process for seconds, the
  // agent meanwhile ends the idle keep-alive connection, and fetch then reuses it before it
  // has seen the close ('other side closed'), a race of the test, not of the agent.
  for (let i = 0; i <= 10_000; i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, 10_001 - i) }, (_, k) => writeFile(join(big, `f${i + k}`), '')));
  }
  const l = await listing(ctx, q('big'));
  assert.is(l.entries.length, 10_000);
  assert.is(l.truncated, true);
  rmSync(join(big, 'f0'));
  const whole = await listing(ctx, q('big'));
  assert.is(whole.entries.length, 10_000);
  assert.is(whole.truncated, undefined);
  rmSync(big, { recursive: true });
});

/** What a listing must hold, computed with the test's own fs calls (realpath, stat). */
function expected(baseReal: string, dir: string): Entry[] {
  const out: Entry[] = [];
  for (const name of readdirSync(dir)) {
    let real: string;
    try {
      real = realpathSync(join(dir, name));
    } catch {
      continue;
    }
    if (real !== baseReal && !real.startsWith(baseReal + '/')) continue;
    const st = statSync(real);
    if (!st.isFile() && !st.isDirectory()) continue;
    out.push({
      name,
      type: st.isFile() ? 'file' : 'directory',
      sizeBytes: st.isFile() ? st.size : null,
      modifiedAt: st.mtime.toISOString(),
    });
  }
  return out.sort((a, b) =>
    a.type !== b.type ? (a.type === 'directory' ? -1 : 1) : Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)),
  );
}

list('property: random trees are listed exactly as the model says', async (ctx) => {
  const root = join(ctx.agent.baseDir, 'prop');
  const baseReal = realpathSync(ctx.agent.baseDir);
  const name = fc.stringMatching(/^[a-zA-Z0-9._ é-]{1,12}$/).filter((n) => n !== '.' && n !== '..');
  const kind = fc.constantFrom('file', 'dir', 'fifo', 'linkIn', 'linkOut', 'linkUp', 'linkDangling', 'linkDir');
  await fc.assert(
    fc.asyncProperty(fc.uniqueArray(fc.tuple(name, kind, fc.nat(5000)), { selector: ([n]) => n, maxLength: 12 }), async (items) => {
      rmSync(root, { recursive: true, force: true });
      mkdirSync(root);
      for (const [n, k, size] of items) {
        const p = join(root, n);
        if (k === 'file') writeFileSync(p, Buffer.alloc(size));
        else if (k === 'dir') mkdirSync(p);
        else if (k === 'fifo') execFileSync('mkfifo', [p]);
        else
          symlinkSync(
            { linkIn: '../a.txt', linkOut: '../../outside/secret.txt', linkUp: '../..', linkDangling: 'none', linkDir: '../sub' }[k]!,
            p,
          );
      }
      const l = await listing(ctx, q('prop'));
      assert.is(l.path, 'prop');
      assert.equal(l.entries, expected(baseReal, root));
    }),
    { seed: SEED, numRuns: runs(60) },
  );
  rmSync(root, { recursive: true, force: true });
});

list('property: hostile paths from the planted tree: only documented answers, nothing from outside', async (ctx) => {
  const baseReal = realpathSync(ctx.agent.baseDir);
  const piece = fc.constantFrom(
    '..',
    '.',
    '',
    'sub',
    'in',
    'inAbs',
    'out',
    'outAbs',
    'up',
    'swap',
    'a.txt',
    'loop1',
    'fifo',
    'order',
    'outside',
    'files',
    '%2e%2e',
    '\\..',
    'x'.repeat(256),
  );
  const lead = fc.constantFrom('', '/', `${ctx.agent.dir}/`, `${ctx.agent.dir}/files/`);
  await fc.assert(
    fc.asyncProperty(lead, fc.array(piece, { minLength: 1, maxLength: 6 }), async (l, parts) => {
      const path = l + parts.join('/');
      const res = await ask(ctx, q(path));
      const body = (await res.json()) as Listing & { error?: string };
      assert.ok([200, 400, 403, 404].includes(res.status), `${res.status} ${JSON.stringify(body)} for ${path}`);
      if (res.status !== 200) return assert.type(body.error, 'string');
      const dir = realpathSync(resolve(ctx.agent.baseDir, path));
      assert.ok(dir === baseReal || dir.startsWith(baseReal + '/'), `listed ${dir} for ${path}`);
      assert.equal(
        names(body),
        expected(baseReal, dir).map((e) => e.name),
        path,
      );
    }),
    { seed: SEED, numRuns: runs(200) },
  );
});

list('no descriptor or child left behind; the FIFOs were never opened for writing', async (ctx) => {
  const pid = ctx.agent.child.pid!;
  assert.ok(await eventually(() => fdCount(pid) <= ctx.fds + 2, 5000), `descriptors: ${ctx.fds} before, ${fdCount(pid)} after`);
  assert.equal(agentChildren(pid), []);
  assert.ok(lstatSync(join(ctx.agent.baseDir, 'fifo')).isFIFO());
  assert.is(ctx.agent.child.exitCode, null);
});

list.run();
