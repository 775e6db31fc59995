// A credential's directory confines every file route through the same code as the base
// (docs/behaviour.md, "Directory"): traversal, absolute paths, links inside the directory
// that lead out of it (though inside the base), the directory itself swapped for a link, a
// directory renamed under a running upload; uploads are relative to uploadDir.
import { request as httpRequest } from 'node:http';
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';

const PASSWORD = 'a password for directories';
const NOT_ALLOWED = { status: 403, body: { error: 'file path is not allowed' } };

interface Ctx {
  agent: TestAgent;
  cam: string;
  token: string;
}
const dirs = suite<Ctx>('directory confinement');

dirs.before(async (ctx) => {
  ctx.agent = await startAgent({
    config: { uploadDir: '.' }, // the agent's own directory: beside the base, not in it
    users: [
      { username: 'cam', password: PASSWORD, role: 'operator', directory: 'cams/front' },
      { username: 'ada', password: PASSWORD, role: 'admin' },
    ],
  });
  const base = ctx.agent.baseDir;
  for (const d of ['cams/front/sub', 'cams/back', 'cams/side']) mkdirSync(join(base, d), { recursive: true });
  writeFileSync(join(base, 'cams/front/a.txt'), 'front');
  writeFileSync(join(base, 'cams/front/sub/s.txt'), 'sub');
  writeFileSync(join(base, 'cams/back/b.txt'), 'back');
  writeFileSync(join(base, 'cams/side/c.txt'), 'side');
  writeFileSync(join(base, 'top.txt'), 'top');
  symlinkSync('../back', join(base, 'cams/front/to-back'));
  symlinkSync('../back/b.txt', join(base, 'cams/front/b-link.txt'));
  symlinkSync('sub/s.txt', join(base, 'cams/front/s-link.txt')); // stays inside: allowed
  mkdirSync(join(ctx.agent.dir, 'cams/front'), { recursive: true });
  ctx.cam = await ctx.agent.login('cam', PASSWORD);
  // A token of cam's, narrowed further to sub/.
  const res = await fetch(`${ctx.agent.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ctx.cam}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'sub', directory: 'cams/front/sub' }),
  });
  assert.is(res.status, 201);
  ctx.token = ((await res.json()) as { token: string }).token;
});

dirs.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

async function get(agent: TestAgent, path: string, token: string) {
  const res = await fetch(`${agent.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  const text = await res.text();
  return { status: res.status, body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
}
const download = (ctx: Ctx, filepath: string, token = ctx.cam) =>
  get(ctx.agent, `/api/download?filepath=${encodeURIComponent(filepath)}`, token);
const list = (ctx: Ctx, path: string, token = ctx.cam) => get(ctx.agent, `/api/v1/files/list?path=${encodeURIComponent(path)}`, token);

dirs('paths stay relative to the base; inside the directory is served, outside is 403 like outside the base', async (ctx) => {
  assert.equal(await download(ctx, 'cams/front/a.txt'), { status: 200, body: 'front' });
  assert.equal(await download(ctx, 'cams/front/sub/s.txt'), { status: 200, body: 'sub' });
  for (const p of [
    'top.txt',
    'cams/back/b.txt',
    'cams/front/../back/b.txt',
    'cams/front/../../top.txt',
    '../top.txt',
    '/etc/passwd',
    `${ctx.agent.baseDir}/cams/back/b.txt`,
    'cams/frontier',
    'cams',
  ]) {
    assert.equal(await download(ctx, p), NOT_ALLOWED, p);
  }
  // An absolute path is taken as the base takes it: what it names must lie inside.
  assert.equal(await download(ctx, `${ctx.agent.baseDir}/cams/front/a.txt`), { status: 200, body: 'front' });
  assert.equal(await list(ctx, ''), NOT_ALLOWED);
  assert.equal(await list(ctx, 'cams'), NOT_ALLOWED);
  assert.is((await list(ctx, 'cams/front')).status, 200);
});

dirs('links in the directory that lead out of it, though inside the base: 403, and left out of listings', async (ctx) => {
  assert.equal(await download(ctx, 'cams/front/b-link.txt'), NOT_ALLOWED);
  assert.equal(await download(ctx, 'cams/front/to-back/b.txt'), NOT_ALLOWED);
  assert.equal(await list(ctx, 'cams/front/to-back'), NOT_ALLOWED);
  assert.equal(await download(ctx, 'cams/front/s-link.txt'), { status: 200, body: 'sub' });
  const names = ((await list(ctx, 'cams/front')).body as { entries: { name: string }[] }).entries.map((e) => e.name);
  assert.equal(names, ['sub', 'a.txt', 's-link.txt']);
  // The admin, confined to the base alone, follows the same links.
  const ada = await ctx.agent.login('ada', PASSWORD);
  assert.equal(await download(ctx, 'cams/front/b-link.txt', ada), { status: 200, body: 'back' });
});

dirs('a token narrower than its user: its own directory, with the same rules', async (ctx) => {
  assert.equal(await download(ctx, 'cams/front/sub/s.txt', ctx.token), { status: 200, body: 'sub' });
  assert.equal(await download(ctx, 'cams/front/a.txt', ctx.token), NOT_ALLOWED);
  assert.equal(await download(ctx, 'cams/front/sub/../a.txt', ctx.token), NOT_ALLOWED);
});

/** A multipart upload whose body is sent in two parts, with `between` run in the middle. */
function slowUpload(ctx: Ctx, saveToPath: string, between: () => void): Promise<{ status: number; body: string }> {
  const boundary = 'xXx-boundary';
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="saveToPath"\r\n\r\n${saveToPath}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="myFile"; filename="u.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const part1 = Buffer.concat([Buffer.from(head), Buffer.alloc(256 * 1024, 1)]);
  const part2 = Buffer.concat([Buffer.alloc(256 * 1024, 2), Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${ctx.agent.url}/api/upload`,
      {
        method: 'POST',
        agent: false,
        headers: {
          Authorization: `Bearer ${ctx.cam}`,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': part1.length + part2.length,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.write(part1);
    // Long enough for the agent to have opened its target and begun writing.
    setTimeout(() => {
      between();
      req.end(part2);
    }, 500);
  });
}

dirs('uploads are relative to uploadDir, confined to the directory there', async (ctx) => {
  const form = (path: string) => {
    const f = new FormData();
    f.append('saveToPath', path);
    f.append('myFile', new Blob(['data']), 'x.txt');
    return f;
  };
  const send = async (path: string) => {
    const res = await fetch(`${ctx.agent.url}/api/upload`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ctx.cam}` },
      body: form(path),
    });
    return { status: res.status, body: await res.json() };
  };
  assert.is((await send('cams/front/x.txt')).status, 200);
  assert.is(readFileSync(join(ctx.agent.dir, 'cams/front/x.txt'), 'utf8'), 'data');
  assert.not.ok(existsSync(join(ctx.agent.baseDir, 'cams/front/x.txt')), 'not under the base');
  for (const p of ['cams/back/x.txt', 'x.txt', 'cams/front/../x.txt', '/tmp/x.txt']) assert.equal(await send(p), NOT_ALLOWED, p);
});

dirs('a directory renamed and replaced by a link out of it under a running upload: nothing lands outside', async (ctx) => {
  const up = ctx.agent.dir;
  mkdirSync(join(up, 'cams/back'), { recursive: true });
  const r = await slowUpload(ctx, 'cams/front/u.bin', () => {
    renameSync(join(up, 'cams/front'), join(up, 'cams/front-old'));
    symlinkSync('back', join(up, 'cams/front'));
  });
  assert.not.ok(existsSync(join(up, 'cams/back/u.bin')), `landed outside the directory (answer ${r.status} ${r.body})`);
  // Either refused, or stored where the request began: in the directory it had opened.
  if (r.status === 200) assert.ok(existsSync(join(up, 'cams/front-old/u.bin')), r.body);
  else assert.equal([r.status, JSON.parse(r.body)], [403, NOT_ALLOWED.body]);
});

dirs('the directory itself swapped for a link (inside the base, or out of it): every request is 403', async (ctx) => {
  const base = ctx.agent.baseDir;
  renameSync(join(base, 'cams/front'), join(base, 'cams/front-moved'));
  try {
    symlinkSync('back', join(base, 'cams/front'));
    assert.equal(await download(ctx, 'cams/front/b.txt'), NOT_ALLOWED);
    assert.equal(await list(ctx, 'cams/front'), NOT_ALLOWED);
    renameSync(join(base, 'cams/front'), join(base, 'cams/front-link'));
    symlinkSync('/etc', join(base, 'cams/front'));
    assert.equal(await download(ctx, 'cams/front/hostname'), NOT_ALLOWED);
    assert.equal(await list(ctx, 'cams/front'), NOT_ALLOWED);
  } finally {
    // Back as it was for the other cases.
    const { rmSync } = await import('node:fs');
    rmSync(join(base, 'cams/front'), { force: true });
    renameSync(join(base, 'cams/front-moved'), join(base, 'cams/front'));
  }
});

dirs.run();
