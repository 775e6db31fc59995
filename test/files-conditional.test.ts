// Conditional downloads (docs/behaviour.md#downloads-conditional-requests; RFC 9110 §13): ETag and Last-Modified on every
// download, If-None-Match / If-Modified-Since → 304, If-Match / If-Unmodified-Since → 412,
// If-Range deciding between 206 and the whole file. With curl's own resume, ETag and
// time conditions as the real clients.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDir, startAgent, type TestAgent } from './helpers/agent.ts';
import { download, parseRaw } from './helpers/files.ts';
import { rawRequest } from './helpers/http.ts';
import { eventually } from './helpers/proc.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const PAST = new Date('2026-01-02T03:04:05Z');
const PAST_HTTP = 'Fri, 02 Jan 2026 03:04:05 GMT';

type Ctx = { agent: TestAgent; token: string; data: Buffer; file: string; tmp: string };
const cond = suite<Ctx>('conditional downloads');
cond.before(async (ctx) => {
  ctx.agent = await startAgent();
  ctx.token = await ctx.agent.login();
  ctx.data = randomBytes(10 * MiB + 5);
  ctx.file = join(ctx.agent.baseDir, 'cond.bin');
  writeFileSync(ctx.file, ctx.data);
  utimesSync(ctx.file, PAST, PAST);
  ctx.tmp = makeDir('da-cond-');
});
cond.after(async (ctx) => {
  await ctx.agent.cleanup();
});

const get = (c: Ctx, headers: Record<string, string> = {}, method = 'GET') =>
  download(c.agent.url, c.token, 'filepath=cond.bin', headers, method);
const etagOf = async (c: Ctx) => (await get(c, {}, 'HEAD')).headers.get('etag')!;

cond('a download carries a strong ETag and Last-Modified, the same on HEAD; both change with the file', async (c) => {
  const res = await get(c);
  assert.is(res.status, 200);
  assert.ok((await res.arrayBuffer()).byteLength === c.data.length);
  const etag = res.headers.get('etag')!;
  assert.match(etag, /^"[0-9a-f]+-[0-9a-f]+-[0-9a-f]+"$/);
  assert.is(res.headers.get('last-modified'), PAST_HTTP);
  const head = await get(c, {}, 'HEAD');
  assert.is(head.headers.get('etag'), etag);
  assert.is(head.headers.get('last-modified'), PAST_HTTP);
  const part = await get(c, { Range: 'bytes=0-9' });
  assert.is(part.status, 206);
  assert.is(part.headers.get('etag'), etag);
  // Same size and bytes, another modification time: another tag.
  utimesSync(c.file, PAST, new Date(PAST.getTime() + 1500));
  assert.is.not(await etagOf(c), etag);
  // Replaced by rename (another inode), same size and time: another tag.
  const other = join(c.agent.baseDir, 'other.bin');
  writeFileSync(other, c.data);
  utimesSync(other, PAST, PAST);
  renameSync(other, c.file);
  utimesSync(c.file, PAST, PAST);
  assert.is.not(await etagOf(c), etag);
});

cond(
  'If-None-Match: the tag, a weak form of it, one in a list, or * answer 304 with the validators and no body; another tag 200',
  async (c) => {
    const etag = await etagOf(c);
    for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      for (const method of ['GET', 'HEAD']) {
        const raw = parseRaw(
          await rawRequest(
            c.agent.port,
            `${method} /api/download?filepath=cond.bin HTTP/1.1\r\nHost: x\r\n` +
              `Authorization: Bearer ${c.token}\r\nIf-None-Match: ${inm}\r\nConnection: close\r\n\r\n`,
          ),
        );
        assert.is(raw.status, 304, `${method} If-None-Match: ${inm}`);
        assert.ok(raw.headers.includes(`\r\netag: ${etag.toLowerCase()}`), raw.headers);
        assert.ok(raw.headers.includes(`\r\nlast-modified: ${PAST_HTTP.toLowerCase()}`), raw.headers);
        assert.not.match(raw.headers, /content-length|content-disposition|content-range/);
        assert.is(raw.body, '');
      }
    }
    for (const inm of ['"nope"', 'W/"nope"', 'garbage']) {
      const res = await get(c, { 'If-None-Match': inm });
      assert.is(res.status, 200, inm);
      assert.is((await res.arrayBuffer()).byteLength, c.data.length);
    }
  },
);

cond(
  'If-Modified-Since: 304 when the file is not newer, 200 when it is or the date is not an HTTP-date; ignored beside If-None-Match',
  async (c) => {
    for (const ims of [PAST_HTTP, 'Sat, 03 Jan 2026 00:00:00 GMT', 'Friday, 02-Jan-26 03:04:05 GMT', 'Fri Jan  2 03:04:05 2026']) {
      assert.is((await get(c, { 'If-Modified-Since': ims })).status, 304, ims);
    }
    for (const ims of ['Fri, 02 Jan 2026 03:04:04 GMT', '2026-01-03', 'yesterday']) {
      const res = await get(c, { 'If-Modified-Since': ims });
      assert.is(res.status, 200, ims);
      await res.arrayBuffer();
    }
    const res = await get(c, { 'If-None-Match': '"nope"', 'If-Modified-Since': PAST_HTTP });
    assert.is(res.status, 200, 'If-None-Match decides, If-Modified-Since is ignored');
    await res.arrayBuffer();
  },
);

cond('If-Match / If-Unmodified-Since: 412 when they fail, as JSON; the download when they hold', async (c) => {
  const etag = await etagOf(c);
  for (const headers of <Record<string, string>[]>[
    { 'If-Match': '"nope"' },
    { 'If-Match': `W/${etag}` },
    { 'If-Unmodified-Since': 'Thu, 01 Jan 2026 00:00:00 GMT' },
  ]) {
    const res = await get(c, headers);
    assert.is(res.status, 412, JSON.stringify(headers));
    assert.equal(await res.json(), { error: 'precondition failed' });
  }
  for (const headers of <Record<string, string>[]>[{ 'If-Match': etag }, { 'If-Match': '*' }, { 'If-Unmodified-Since': PAST_HTTP }]) {
    const res = await get(c, headers);
    assert.is(res.status, 200, JSON.stringify(headers));
    await res.arrayBuffer();
  }
});

cond(
  'If-Range: the strong tag or the exact date gives the range; a weak or other tag, another date: the whole file with 200',
  async (c) => {
    const etag = await etagOf(c);
    for (const ifRange of [etag, PAST_HTTP]) {
      const res = await get(c, { Range: 'bytes=100-199', 'If-Range': ifRange });
      assert.is(res.status, 206, ifRange);
      assert.is(res.headers.get('content-range'), `bytes 100-199/${c.data.length}`);
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(c.data.subarray(100, 200)));
    }
    for (const ifRange of [`W/${etag}`, '"nope"', 'Fri, 02 Jan 2026 03:04:06 GMT', 'Fri Jan  2 03:04:05 2026']) {
      const res = await get(c, { Range: 'bytes=100-199', 'If-Range': ifRange });
      assert.is(res.status, 200, ifRange);
      assert.is(res.headers.get('content-range'), null);
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(c.data), ifRange);
    }
    // A Range past the end with a stale If-Range: the Range is ignored, so no 416.
    const stale = await get(c, { Range: `bytes=${c.data.length + 10}-`, 'If-Range': '"nope"' });
    assert.is(stale.status, 200);
    await stale.arrayBuffer();
    // A file modified within the last second has no strong date: the date does not match.
    const fresh = join(c.agent.baseDir, 'fresh.txt');
    writeFileSync(fresh, 'just written');
    const lm = (await download(c.agent.url, c.token, 'filepath=fresh.txt', {}, 'HEAD')).headers.get('last-modified')!;
    const res = await download(c.agent.url, c.token, 'filepath=fresh.txt', { Range: 'bytes=0-3', 'If-Range': lm });
    assert.is(res.status, 200);
    assert.is(await res.text(), 'just written');
  },
);

const curl = (c: Ctx, args: string[]) =>
  run('curl', ['-sS', '-H', `Authorization: Bearer ${c.token}`, ...args, `${c.agent.url}/api/download?filepath=cond.bin`]).then(
    (r) => r.stdout,
    (err) => {
      throw Object.assign(new Error(`curl ${args.join(' ')}: ${err.stderr}`), { code: err.code });
    },
  );

cond('curl -C - resumes a partial download: the file arrives whole; with a matching If-Range too', async (c) => {
  const etag = await etagOf(c);
  for (const extra of [[], ['-H', `If-Range: ${etag}`]]) {
    const local = join(c.tmp, 'resumed.bin');
    writeFileSync(local, c.data.subarray(0, 3 * MiB + 7));
    const code = await curl(c, ['-C', '-', '-o', local, '-w', '%{http_code}', ...extra]);
    assert.is(code, '206');
    assert.ok(readFileSync(local).equals(c.data), `resumed file differs (${extra.join(' ')})`);
  }
});

cond(
  'curl -C - with an If-Range of the old file, after the file changed: 200, curl refuses to append, the partial file stays',
  async (c) => {
    const etag = await etagOf(c);
    const changed = Buffer.from(c.data);
    changed[0] = changed[0]! ^ 0xff;
    writeFileSync(c.file, changed); // same size, new mtime
    try {
      const local = join(c.tmp, 'stale.bin');
      const partial = c.data.subarray(0, 2 * MiB);
      writeFileSync(local, partial);
      const mark = c.agent.output().length;
      let code = '';
      try {
        code = await curl(c, ['-C', '-', '-o', local, '-w', '%{http_code}', '-H', `If-Range: ${etag}`]);
      } catch (err) {
        // curl: "HTTP server doesn't seem to support byte ranges. Cannot resume." (exit 33)
        assert.is((err as { code?: number }).code, 33, String(err));
      }
      assert.is(code, '');
      assert.ok(readFileSync(local).equals(partial), 'the partial file was changed');
      // The agent answered 200 (the whole file); curl hung up on it.
      assert.ok(
        await eventually(() => / GET \/api\/download 200(-aborted)? /.test(c.agent.output().slice(mark)), 3000),
        c.agent.output().slice(mark),
      );
    } finally {
      writeFileSync(c.file, c.data);
      utimesSync(c.file, PAST, PAST);
    }
  },
);

cond('curl --etag-save / --etag-compare and curl -z: 304, the local file untouched; 200 once the file changed', async (c) => {
  const tagFile = join(c.tmp, 'etag.txt');
  const out = join(c.tmp, 'out.bin');
  assert.is(await curl(c, ['--etag-save', tagFile, '-o', out, '-w', '%{http_code}']), '200');
  assert.ok(readFileSync(out).equals(c.data));
  assert.is(await curl(c, ['--etag-compare', tagFile, '-o', join(c.tmp, 'again.bin'), '-w', '%{http_code}']), '304');
  // -z FILE: If-Modified-Since from the local file's time.
  utimesSync(out, PAST, PAST);
  assert.is(await curl(c, ['-z', out, '-o', join(c.tmp, 'z.bin'), '-w', '%{http_code}']), '304');
  utimesSync(c.file, PAST, new Date(PAST.getTime() + 60_000));
  assert.is(await curl(c, ['--etag-compare', tagFile, '-o', join(c.tmp, 'new.bin'), '-w', '%{http_code}']), '200');
  assert.is(await curl(c, ['-z', out, '-o', join(c.tmp, 'z2.bin'), '-w', '%{http_code}']), '200');
  assert.ok(statSync(join(c.tmp, 'z2.bin')).size === c.data.length);
  utimesSync(c.file, PAST, PAST);
});

cond.run();
