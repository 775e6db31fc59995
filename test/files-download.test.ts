import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { download } from './helpers/files.ts';

type Ctx = { agent: TestAgent; small: TestAgent; token: string; smallToken: string; sock: Server };
const MiB = 1024 * 1024;

async function expectError(res: Response, status: number, error: string) {
  assert.is(res.status, status);
  assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(await res.json(), { error });
}

/** The layout every case reads: regular files, links in and out, a FIFO, a socket, sparse files. */
async function layout(ctx: Ctx) {
  const base = ctx.agent.baseDir;
  const dir = ctx.agent.dir;
  writeFileSync(join(base, 'hello.txt'), 'hello world');
  writeFileSync(join(base, 'empty.txt'), '');
  mkdirSync(join(base, 'sub/deeper'), { recursive: true });
  writeFileSync(join(base, 'sub/inner.bin'), Buffer.from([0, 1, 2, 3]));
  writeFileSync(join(dir, 'secret.txt'), 'outside');
  mkdirSync(join(dir, 'files2'));
  writeFileSync(join(dir, 'files2/secret.txt'), 'sibling');
  symlinkSync('../secret.txt', join(base, 'link-out'));
  symlinkSync('/etc/passwd', join(base, 'link-abs-out'));
  symlinkSync('hello.txt', join(base, 'link-in'));
  symlinkSync('sub/inner.bin', join(base, 'link-in-deep'));
  symlinkSync('../nowhere/x', join(base, 'dangling-out'));
  symlinkSync('missing.txt', join(base, 'dangling-in'));
  symlinkSync('..', join(base, 'dir-out'));
  symlinkSync('sub', join(base, 'dir-in'));
  symlinkSync('loop', join(base, 'loop'));
  symlinkSync('link-out', join(base, 'chain-out'));
  execFileSync('mkfifo', [join(base, 'fifo')]);
  writeFileSync(join(base, 'naïve résumé.pdf'), 'pdf');
  writeFileSync(join(base, 'say "hi" \\ there.txt'), 'quotes');
  writeFileSync(join(base, 'x.unknownext'), 'data');
  for (const [name, size] of [
    ['exact.bin', 50 * MiB],
    ['over.bin', 50 * MiB + 1],
  ] as const) {
    writeFileSync(join(base, name), '');
    truncateSync(join(base, name), size); // sparse: no 50 MiB written to disk
  }
  for (const [name, size] of [
    ['exact.bin', MiB],
    ['over.bin', MiB + 1],
  ] as const) {
    writeFileSync(join(ctx.small.baseDir, name), '');
    truncateSync(join(ctx.small.baseDir, name), size);
  }
  ctx.sock = createServer();
  await new Promise<void>((r) => ctx.sock.listen(join(base, 'sock'), r));
}

const dl = suite<Ctx>('download');
dl.before(async (ctx) => {
  [ctx.agent, ctx.small] = await Promise.all([startAgent(), startAgent({ config: { maxFileBytes: MiB } })]);
  [ctx.token, ctx.smallToken] = await Promise.all([ctx.agent.login(), ctx.small.login()]);
  await layout(ctx);
});
dl.after(async (ctx) => {
  ctx.sock?.close();
  await Promise.all([ctx.agent?.cleanup(), ctx.small?.cleanup()]);
});

dl('streams a file with the five headers of the spec, nosniff and its MIME type', async ({ agent, token }) => {
  const res = await download(agent.url, token, 'filepath=hello.txt');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-disposition'), 'attachment; filename="hello.txt"');
  assert.is(res.headers.get('content-type'), 'text/plain');
  assert.is(res.headers.get('content-length'), '11');
  assert.is(res.headers.get('content-description'), 'File Transfer');
  assert.is(res.headers.get('content-transfer-encoding'), 'binary');
  assert.is(res.headers.get('x-content-type-options'), 'nosniff');
  assert.is(await res.text(), 'hello world');
});

dl('uses application/octet-stream when the extension says nothing', async ({ agent, token }) => {
  const res = await download(agent.url, token, 'filepath=x.unknownext');
  assert.is(res.headers.get('content-type'), 'application/octet-stream');
  assert.is(await res.text(), 'data');
});

dl('gives non-ASCII names filename* beside an ASCII fallback, and escapes quotes', async ({ agent, token }) => {
  let res = await download(agent.url, token, 'filepath=' + encodeURIComponent('naïve résumé.pdf'));
  assert.is(res.status, 200);
  assert.is(
    res.headers.get('content-disposition'),
    `attachment; filename="na_ve r_sum_.pdf"; filename*=UTF-8''na%C3%AFve%20r%C3%A9sum%C3%A9.pdf`,
  );
  await res.arrayBuffer();
  res = await download(agent.url, token, 'filepath=' + encodeURIComponent('say "hi" \\ there.txt'));
  assert.is(res.headers.get('content-disposition'), 'attachment; filename="say \\"hi\\" \\\\ there.txt"');
  assert.is(await res.text(), 'quotes');
});

dl('answers HEAD with the same headers and no body', async ({ agent, token }) => {
  const res = await download(agent.url, token, 'filepath=hello.txt', {}, 'HEAD');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-length'), '11');
  assert.is(res.headers.get('content-disposition'), 'attachment; filename="hello.txt"');
  assert.is(await res.text(), '');
});

dl('serves a single Range with 206 and Content-Range', async ({ agent, token }) => {
  for (const [range, body, cr] of [
    ['bytes=0-4', 'hello', 'bytes 0-4/11'],
    ['bytes=6-', 'world', 'bytes 6-10/11'],
    ['bytes=-5', 'world', 'bytes 6-10/11'],
    ['bytes=6-99', 'world', 'bytes 6-10/11'],
  ]) {
    const res = await download(agent.url, token, 'filepath=hello.txt', { Range: range! });
    assert.is(res.status, 206, range);
    assert.is(res.headers.get('content-range'), cr);
    assert.is(res.headers.get('content-length'), String(body!.length));
    assert.is(await res.text(), body);
  }
});

dl('answers 416 to an unsatisfiable Range and 200 to several ranges', async ({ agent, token }) => {
  const res = await download(agent.url, token, 'filepath=hello.txt', { Range: 'bytes=11-' });
  assert.is(res.headers.get('content-range'), 'bytes */11');
  await expectError(res, 416, 'requested range not satisfiable');
  const multi = await download(agent.url, token, 'filepath=hello.txt', { Range: 'bytes=0-1,3-4' });
  assert.is(multi.status, 200);
  assert.is(await multi.text(), 'hello world');
});

dl('requires a bearer token', async ({ agent }) => {
  const res = await fetch(`${agent.url}/api/download?filepath=hello.txt`);
  assert.is(res.status, 401);
  assert.is(res.headers.get('www-authenticate'), 'Bearer');
});

dl('answers every row of the download error table with its exact text', async ({ agent, token }) => {
  await expectError(await download(agent.url, token, ''), 400, 'file path is required, could not download file');
  await expectError(await download(agent.url, token, 'filepath='), 400, 'file path is required, could not download file');
  await expectError(await download(agent.url, token, 'filepath=../secret.txt'), 403, 'file path is not allowed');
  await expectError(await download(agent.url, token, 'filepath=sub'), 403, 'sub is a directory and not a file');
  await expectError(await download(agent.url, token, 'filepath=fifo'), 403, 'file is not a regular file');
  await expectError(await download(agent.url, token, 'filepath=sock'), 403, 'file is not a regular file');
  await expectError(await download(agent.url, token, 'filepath=nope.txt'), 404, 'file not found at nope.txt');
  await expectError(await download(agent.url, token, 'filepath=empty.txt'), 412, 'file is empty');
  await expectError(
    await download(agent.url, token, 'filepath=hello.txt&fstype=MemMapFs'),
    412,
    'failed to get file system: unknown file system type "MemMapFs", only "OsFs" exists',
  );
  await expectError(await download(agent.url, token, 'filepath=over.bin'), 413, 'file too large, max size is 50 MB');
});

dl('accepts fstype OsFs, explicitly or empty', async ({ agent, token }) => {
  for (const q of ['filepath=hello.txt&fstype=OsFs', 'fstype=&filepath=hello.txt']) {
    const res = await download(agent.url, token, q);
    assert.is(res.status, 200, q);
    assert.is(await res.text(), 'hello world');
  }
});

dl('streams a sparse file of exactly 50 MiB and refuses one byte more', async ({ agent, token }) => {
  const res = await download(agent.url, token, 'filepath=exact.bin');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-length'), String(50 * MiB));
  const body = new Uint8Array(await res.arrayBuffer());
  assert.is(body.length, 50 * MiB);
  assert.ok(body.every((b) => b === 0));
  await expectError(await download(agent.url, token, 'filepath=over.bin'), 413, 'file too large, max size is 50 MB');
});

dl('follows maxFileBytes from the config, in the limit and in the text', async ({ small, smallToken }) => {
  const res = await download(small.url, smallToken, 'filepath=exact.bin');
  assert.is(res.status, 200);
  assert.is((await res.arrayBuffer()).byteLength, MiB);
  await expectError(await download(small.url, smallToken, 'filepath=over.bin'), 413, 'file too large, max size is 1 MB');
});

dl('refuses every path of the traversal corpus', async ({ agent, token }) => {
  const forbidden = [
    '../secret.txt',
    '%2e%2e%2fsecret.txt',
    '%2E%2E/%2E%2E/etc/passwd',
    '/etc/passwd',
    '%2Fetc%2Fpasswd',
    'sub/../../secret.txt',
    'sub/deeper/../../../secret.txt',
    '../files2/secret.txt',
    '..',
    '../',
    './../secret.txt',
    encodeURIComponent(join('/', agent.dir, 'secret.txt')),
    encodeURIComponent(join('/', agent.dir, 'files2', 'secret.txt')),
  ];
  for (const q of forbidden) await expectError(await download(agent.url, token, 'filepath=' + q), 403, 'file path is not allowed');
});

dl('treats doubly encoded dots and backslashes as plain names', async ({ agent, token }) => {
  await expectError(await download(agent.url, token, 'filepath=%252e%252e%252fsecret.txt'), 404, 'file not found at %2e%2e%2fsecret.txt');
  await expectError(await download(agent.url, token, 'filepath=..%5Csecret.txt'), 404, 'file not found at ..\\secret.txt');
  await expectError(
    await download(agent.url, token, 'filepath=sub%5C..%5C..%5Csecret.txt'),
    404,
    'file not found at sub\\..\\..\\secret.txt',
  );
});

dl('accepts paths that stay inside after normalisation', async ({ agent, token }) => {
  for (const q of ['./hello.txt', 'sub/../hello.txt', 'sub//..//hello.txt']) {
    const res = await download(agent.url, token, 'filepath=' + q);
    assert.is(res.status, 200, q);
    assert.is(await res.text(), 'hello world');
  }
});

dl('answers NUL, repeated keys, broken escapes and long paths with 400, never 500', async ({ agent, token }) => {
  await expectError(await download(agent.url, token, 'filepath=hello.txt%00.png'), 400, 'filepath must not contain NUL');
  await expectError(await download(agent.url, token, 'filepath=a&filepath=b'), 400, 'filepath must be given once');
  await expectError(await download(agent.url, token, 'filepath=hello.txt&fstype=OsFs&fstype=OsFs'), 400, 'fstype must be given once');
  await expectError(await download(agent.url, token, 'filepath=%zz'), 400, 'filepath has a malformed percent escape');
  await expectError(await download(agent.url, token, 'filepath=%'), 400, 'filepath has a malformed percent escape');
  await expectError(await download(agent.url, token, 'filepath=%ff%fe'), 400, 'filepath has a malformed percent escape');
  await expectError(await download(agent.url, token, 'file%zzpath=x'), 400, 'query has a malformed percent escape');
  await expectError(await download(agent.url, token, 'filepath=' + 'a/'.repeat(2100)), 400, 'filepath must be at most 4096 bytes');
  const long = 'x'.repeat(300);
  await expectError(await download(agent.url, token, 'filepath=' + long), 404, `file not found at ${long}`);
});

dl('refuses links whose real target is outside, dangling and looping ones included', async ({ agent, token }) => {
  for (const p of [
    'link-out',
    'link-abs-out',
    'dangling-out',
    'dir-out/secret.txt',
    'dir-out/files2/secret.txt',
    'dir-out/nothing-here',
    'loop',
    'chain-out',
    'dir-in/../link-out',
  ]) {
    await expectError(await download(agent.url, token, 'filepath=' + p), 403, 'file path is not allowed');
  }
});

dl('follows links that stay inside, for files and directories', async ({ agent, token }) => {
  let res = await download(agent.url, token, 'filepath=link-in');
  assert.is(await res.text(), 'hello world');
  res = await download(agent.url, token, 'filepath=link-in-deep');
  assert.equal([...new Uint8Array(await res.arrayBuffer())], [0, 1, 2, 3]);
  res = await download(agent.url, token, 'filepath=dir-in/inner.bin');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-disposition'), 'attachment; filename="inner.bin"');
  await res.arrayBuffer();
  await expectError(await download(agent.url, token, 'filepath=dangling-in'), 404, 'file not found at dangling-in');
  await expectError(await download(agent.url, token, 'filepath=dir-in'), 403, 'dir-in is a directory and not a file');
});

dl('does not block on a FIFO: many requests answer at once', async ({ agent, token }) => {
  const started = Date.now();
  const all = await Promise.all(Array.from({ length: 8 }, () => download(agent.url, token, 'filepath=fifo')));
  for (const res of all) await expectError(res, 403, 'file is not a regular file');
  assert.ok(Date.now() - started < 3000);
  const res = await download(agent.url, token, 'filepath=hello.txt'); // the thread pool is still free
  assert.is(await res.text(), 'hello world');
});

dl('answers unknown methods on the route with 405 and Allow', async ({ agent, token }) => {
  const res = await fetch(`${agent.url}/api/download?filepath=hello.txt`, { method: 'PUT', headers: { Authorization: `Bearer ${token}` } });
  assert.is(res.status, 405);
  assert.is(res.headers.get('allow'), 'GET, HEAD');
});

dl.run();
