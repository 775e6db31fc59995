import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnAgent, startAgent, type TestAgent } from './helpers/agent.ts';
import { BOUNDARY, download, multipart, parseRaw, rawUpload, snapshot, upload } from './helpers/files.ts';
import { eventually } from './helpers/proc.ts';

type Ctx = { agent: TestAgent; token: string };
const MiB = 1024 * 1024;
const OLD = 'old content, must survive';

async function expectError(res: Response, status: number, error: string) {
  assert.is(res.status, status);
  assert.equal(await res.json(), { error });
}

const temps = (dir: string): string[] => snapshot(dir).filter((l) => l.includes('.device-agent-upload-'));

/** Sends a chunked multipart upload of `fileBytes`; cuts the socket after `abortAfter` bytes if given. */
function streamUpload(port: number, token: string, fileBytes: number, abortAfter?: number): Promise<string> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    let out = '';
    let sent = 0;
    sock.on('data', (d) => {
      out += d.toString('latin1');
    });
    sock.on('error', () => resolve(out));
    sock.on('close', () => resolve(out));
    const chunk = (b: Buffer) => {
      sock.write(`${b.length.toString(16)}\r\n`);
      sock.write(b);
      return sock.write('\r\n');
    };
    sock.write(
      `POST /api/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    chunk(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="saveToPath"\r\n\r\ntarget.txt\r\n` +
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="myFile"; filename="t.txt"\r\n\r\n`,
      ),
    );
    const block = Buffer.alloc(64 * 1024, 'x');
    const pump = () => {
      while (sent < fileBytes && out === '') {
        if (abortAfter !== undefined && sent >= abortAfter) {
          setTimeout(() => sock.destroy(), 200);
          return;
        }
        sent += block.length;
        if (!chunk(block)) return void sock.once('drain', pump);
      }
      if (out === '') sock.write(`0\r\n\r\n`);
    };
    pump();
    setTimeout(() => {
      sock.destroy();
      resolve(out);
    }, 8000);
  });
}

const up = suite<Ctx>('upload');
up.before(async (ctx) => {
  const old = process.umask(0o077); // created files must be 0644 whatever the umask
  try {
    ctx.agent = await startAgent({ config: { maxFileBytes: MiB } });
  } finally {
    process.umask(old);
  }
  ctx.token = await ctx.agent.login();
  const base = ctx.agent.baseDir;
  mkdirSync(join(base, 'dir/sub'), { recursive: true });
  writeFileSync(join(base, 'target.txt'), OLD);
  writeFileSync(join(base, 'hello.txt'), 'hello');
  writeFileSync(join(ctx.agent.dir, 'outside.txt'), 'outside');
  symlinkSync('..', join(base, 'dir-out'));
  symlinkSync('../outside.txt', join(base, 'link-out'));
  symlinkSync('../nowhere/new.txt', join(base, 'dangling-out'));
  symlinkSync('hello.txt', join(base, 'link-in'));
  symlinkSync('dir', join(base, 'dir-in'));
});
up.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

up('stores a file sent by curl -F with mode 0644 whatever the umask', async ({ agent, token }) => {
  const src = join(agent.dir, 'curl-src.bin');
  writeFileSync(src, Buffer.alloc(300 * 1024, 'c'));
  const out = execFileSync('curl', [
    '-sS',
    '-H',
    `Authorization: Bearer ${token}`,
    '-F',
    'saveToPath=dir/from-curl.bin',
    '-F',
    `myFile=@${src}`,
    '-w',
    ' %{http_code}',
    `${agent.url}/api/upload`,
  ]).toString();
  assert.is(out, '{"message":"Uploaded successfully"} 200');
  const dest = join(agent.baseDir, 'dir/from-curl.bin');
  assert.ok(readFileSync(dest).equals(readFileSync(src)));
  assert.is(statSync(dest).mode & 0o777, 0o644);
  assert.equal(temps(agent.baseDir), []);
});

up('accepts the fields in any order and replaces an existing file', async ({ agent, token }) => {
  writeFileSync(join(agent.baseDir, 'order.txt'), 'before');
  const res = await upload(agent.url, token, [
    { name: 'myFile', filename: 'a.txt', value: 'after' },
    { name: 'fstype', value: 'OsFs' },
    { name: 'saveToPath', value: 'order.txt' },
  ]);
  assert.is(res.status, 200);
  assert.equal(await res.json(), { message: 'Uploaded successfully' });
  assert.is(readFileSync(join(agent.baseDir, 'order.txt'), 'utf8'), 'after');
  assert.is(statSync(join(agent.baseDir, 'order.txt')).mode & 0o777, 0o644);
});

up('answers every row of the upload error table with its exact text', async ({ agent, token }) => {
  const before = snapshot(agent.baseDir);
  await expectError(await upload(agent.url, token, [{ name: 'myFile', filename: 'a.txt', value: 'x' }]), 400, 'No save path provided');
  await expectError(
    await upload(agent.url, token, [
      { name: 'saveToPath', value: '' },
      { name: 'myFile', filename: 'a.txt', value: 'x' },
    ]),
    400,
    'No save path provided',
  );
  await expectError(
    await upload(agent.url, token, [
      { name: 'saveToPath', value: 'target.txt' },
      { name: 'myFile', value: 'not a file' },
    ]),
    400,
    'No files uploaded',
  );
  await expectError(await upload(agent.url, token, [{ name: 'saveToPath', value: 'target.txt' }]), 400, 'No files uploaded');
  const declared = await rawUpload(agent.port, token, Buffer.alloc(10), `Content-Length: ${MiB + 1}\r\n`);
  assert.is(declared.status, 400);
  assert.is(declared.body, '{"error":"Failed to parse form: file too large"}');
  assert.ok(declared.headers.includes('connection: close'));
  await expectError(
    await upload(agent.url, token, [
      { name: 'saveToPath', value: 'nodir/x.txt' },
      { name: 'myFile', filename: 'a', value: 'x' },
    ]),
    500,
    'Failed to create file on server: directory of nodir/x.txt does not exist',
  );
  await expectError(
    await upload(agent.url, token, [
      { name: 'saveToPath', value: 'target.txt' },
      { name: 'fstype', value: 'BasePathFs' },
      { name: 'myFile', filename: 'a', value: 'x' },
    ]),
    412,
    'failed to get file system: unknown file system type "BasePathFs", only "OsFs" exists',
  );
  const noAuth = await fetch(`${agent.url}/api/upload`, {
    method: 'POST',
    body: new Uint8Array(multipart([{ name: 'saveToPath', value: 'target.txt' }])),
    headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
  assert.is(noAuth.status, 401);
  assert.equal(snapshot(agent.baseDir), before);
});

up('refuses a save path outside the upload directory, links included, with 403', async ({ agent, token }) => {
  const before = snapshot(agent.baseDir);
  const outsideBefore = readFileSync(join(agent.dir, 'outside.txt'), 'utf8');
  for (const p of [
    '../x.txt',
    '/tmp/x.txt',
    'dir/../../x.txt',
    '../files2/x.txt',
    'dir-out/x.txt',
    'link-out',
    'dangling-out',
    'dir-out/',
  ]) {
    await expectError(
      await upload(agent.url, token, [
        { name: 'saveToPath', value: p },
        { name: 'myFile', filename: 'a', value: 'x' },
      ]),
      403,
      'file path is not allowed',
    );
  }
  await expectError(
    await upload(agent.url, token, [
      { name: 'saveToPath', value: 'a\0b' },
      { name: 'myFile', filename: 'a', value: 'x' },
    ]),
    400,
    'saveToPath must not contain NUL',
  );
  assert.equal(snapshot(agent.baseDir), before);
  assert.is(readFileSync(join(agent.dir, 'outside.txt'), 'utf8'), outsideBefore);
  assert.not.ok(existsSync(join(agent.dir, 'x.txt')) || existsSync(join(agent.dir, 'nowhere')));
});

up('follows links that stay inside: the link keeps pointing at the new content', async ({ agent, token }) => {
  assert.is(
    (
      await upload(agent.url, token, [
        { name: 'saveToPath', value: 'link-in' },
        { name: 'myFile', filename: 'a', value: 'via link' },
      ])
    ).status,
    200,
  );
  assert.is(readFileSync(join(agent.baseDir, 'hello.txt'), 'utf8'), 'via link');
  assert.is(
    snapshot(agent.baseDir).find((l) => l.startsWith('link-in')),
    'link-in -> hello.txt',
  );
  assert.is(
    (
      await upload(agent.url, token, [
        { name: 'saveToPath', value: 'dir-in/through.txt' },
        { name: 'myFile', filename: 'a', value: 't' },
      ])
    ).status,
    200,
  );
  assert.is(readFileSync(join(agent.baseDir, 'dir/through.txt'), 'utf8'), 't');
});

up('saves several files under their own names in a directory', async ({ agent, token }) => {
  const files = [
    { name: 'myFile', filename: 'one.txt', value: '1' },
    { name: 'myFile', filename: 'two.txt', value: '2' },
  ];
  assert.is((await upload(agent.url, token, [{ name: 'saveToPath', value: 'dir/sub/' }, ...files])).status, 200);
  assert.is((await upload(agent.url, token, [...files, { name: 'saveToPath', value: 'dir' }])).status, 200);
  for (const d of ['dir/sub', 'dir']) {
    assert.is(readFileSync(join(agent.baseDir, d, 'one.txt'), 'utf8'), '1');
    assert.is(readFileSync(join(agent.baseDir, d, 'two.txt'), 'utf8'), '2');
  }
  // formidable would decode these entities to "../"; here it is only an odd file name.
  assert.is(
    (
      await upload(agent.url, token, [
        { name: 'saveToPath', value: 'dir/' },
        { name: 'myFile', filename: '&#0046;&#0046;&#0047;ent', value: 'e' },
      ])
    ).status,
    200,
  );
  assert.is(readFileSync(join(agent.baseDir, 'dir/&#0046;&#0046;&#0047;ent'), 'utf8'), 'e');
  assert.not.ok(existsSync(join(agent.dir, 'ent')));
});

up('stores every byte of several files whatever the chunks the body arrives in, tiny ones included', async ({ agent, token }) => {
  mkdirSync(join(agent.baseDir, 'chunked'));
  // Random content (a boundary-like run in it too), so a slice written twice, dropped or
  // freed before it was written shows as a difference.
  const contents = [
    randomBytes(300 * 1024),
    Buffer.concat([Buffer.from(`\r\n--${BOUNDARY.slice(0, 20)}`), randomBytes(90 * 1024)]),
    randomBytes(5),
  ];
  const body = multipart([
    { name: 'saveToPath', value: 'chunked/' },
    ...contents.map((value, i) => ({ name: 'myFile', filename: `c${i}.bin`, value })),
  ]);
  const res = await new Promise<string>((resolve, reject) => {
    const sock = connect(agent.port, '127.0.0.1');
    sock.setNoDelay(true);
    let out = '';
    sock.on('data', (d) => {
      out += d.toString('latin1');
    });
    sock.on('error', reject);
    sock.on('end', () => resolve(out));
    sock.write(
      `POST /api/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    // Chunks of 1 to 40,000 bytes, a pause now and then so they reach the agent apart.
    const sizes = [1, 2, 3, 7, 70, 1, 1500, 40_000, 1, 9000, 64, 3];
    (async () => {
      for (let at = 0, i = 0; at < body.length; i++) {
        const piece = body.subarray(at, Math.min(body.length, at + (sizes[i % sizes.length] ?? 1)));
        at += piece.length;
        sock.write(`${piece.length.toString(16)}\r\n`);
        sock.write(piece);
        sock.write('\r\n');
        if (i % 40 === 0) await new Promise((r) => setTimeout(r, 1));
      }
      sock.write('0\r\n\r\n');
    })().catch(reject);
  });
  assert.match(res, /^HTTP\/1\.1 200 /);
  for (const [i, c] of contents.entries()) assert.ok(readFileSync(join(agent.baseDir, `chunked/c${i}.bin`)).equals(c), `c${i}.bin differs`);
  assert.equal(temps(agent.baseDir), []);
});

up('refuses several files for a file target and bad basenames, writing nothing', async ({ agent, token }) => {
  const before = snapshot(agent.baseDir);
  await expectError(
    await upload(agent.url, token, [
      { name: 'saveToPath', value: 'target.txt' },
      { name: 'myFile', filename: 'a', value: 'A' },
      { name: 'myFile', filename: 'b', value: 'B' },
    ]),
    400,
    'several files need a directory as saveToPath',
  );
  for (const name of ['..', '.', 'a\\b', '../escape.txt', 'sub/x']) {
    await expectError(
      await upload(agent.url, token, [
        { name: 'saveToPath', value: 'dir/' },
        { name: 'myFile', filename: 'ok.txt', value: 'ok' },
        { name: 'myFile', filename: name, value: 'bad' },
      ]),
      400,
      `file name not allowed: ${JSON.stringify(name)}`,
    );
  }
  assert.equal(snapshot(agent.baseDir), before);
});

up('takes many parts, and refuses more than 1000 parts or a huge part header', async ({ agent, token }) => {
  mkdirSync(join(agent.baseDir, 'many'));
  const parts = Array.from({ length: 300 }, (_, i) => ({ name: 'myFile', filename: `f${i}.txt`, value: i % 7 === 0 ? '' : `n${i}` }));
  assert.is((await upload(agent.url, token, [{ name: 'saveToPath', value: 'many/' }, ...parts])).status, 200);
  assert.is(readdirSync(join(agent.baseDir, 'many')).length, 300);
  assert.is(readFileSync(join(agent.baseDir, 'many/f299.txt'), 'utf8'), 'n299');
  const before = snapshot(agent.baseDir);
  const tooMany = Array.from({ length: 1001 }, (_, i) => ({ name: 'myFile', filename: `g${i}`, value: '' }));
  await expectError(
    await upload(agent.url, token, [{ name: 'saveToPath', value: 'many/' }, ...tooMany]),
    400,
    'Failed to parse form: more than 1000 parts',
  );
  await expectError(
    await upload(agent.url, token, [
      { name: 'saveToPath', value: 'target.txt' },
      { name: 'myFile', filename: 'a', value: 'x', extraHeaders: `X-Pad: ${'p'.repeat(9000)}\r\n` },
    ]),
    400,
    'Failed to parse form: part header too large',
  );
  assert.equal(snapshot(agent.baseDir), before);
});

up('leaves the target and the directory as they were after an oversized streamed upload', async ({ agent, token }) => {
  const before = snapshot(agent.baseDir);
  const res = parseRaw(await streamUpload(agent.port, token, 2 * MiB));
  assert.is(res.status, 400);
  assert.is(res.body, '{"error":"Failed to parse form: file too large"}');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(snapshot(agent.baseDir), before);
  assert.is(readFileSync(join(agent.baseDir, 'target.txt'), 'utf8'), OLD);
});

up('leaves the target and the directory as they were after an aborted upload', async ({ agent, token }) => {
  const before = snapshot(agent.baseDir);
  assert.is(await streamUpload(agent.port, token, 900 * 1024, 400 * 1024), '');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(snapshot(agent.baseDir), before);
  assert.match(agent.output(), /POST \/api\/upload \d+-aborted/);
});

up('never shows a reader a torn file while uploads replace it', async ({ agent, token }) => {
  const size = 512 * 1024;
  writeFileSync(join(agent.baseDir, 'swap.bin'), Buffer.alloc(size, 'a'));
  const readers = async () => {
    for (let i = 0; i < 15; i++) {
      const res = await download(agent.url, token, 'filepath=swap.bin');
      const body = Buffer.from(await res.arrayBuffer());
      assert.is(body.length, size);
      assert.ok(
        body.every((b) => b === body[0]),
        'a download mixed two versions',
      );
    }
  };
  const writers = async () => {
    for (let i = 0; i < 10; i++) {
      const res = await upload(agent.url, token, [
        { name: 'saveToPath', value: 'swap.bin' },
        { name: 'myFile', filename: 's', value: Buffer.alloc(size, i % 2 ? 'a' : 'b') },
      ]);
      assert.is(res.status, 200);
    }
  };
  await Promise.all([readers(), readers(), readers(), writers()]);
});

up.run();

const life = suite('upload lifecycle');

life('removes temp files of an upload cut by SIGTERM, and sweeps orphans of a crash at start', async () => {
  const agent = await startAgent();
  try {
    const token = await agent.login();
    writeFileSync(join(agent.baseDir, 'target.txt'), OLD);
    mkdirSync(join(agent.baseDir, 'deep/er'), { recursive: true });
    const orphan = join(agent.baseDir, 'deep/er/.device-agent-upload-0123456789abcdef0123456789abcdef.tmp');
    const before = snapshot(agent.baseDir);
    const pending = streamUpload(agent.port, token, 40 * MiB, 30 * MiB); // still sending when the agent stops
    await new Promise((r) => setTimeout(r, 300));
    const stopped = await agent.stop('SIGTERM');
    assert.is(stopped.code, 0);
    await pending;
    assert.equal(snapshot(agent.baseDir), before, agent.output());
    writeFileSync(orphan, 'left by a crash');
    const again = await spawnAgent(agent.dir);
    try {
      for (let i = 0; i < 50 && existsSync(orphan); i++) await new Promise((r) => setTimeout(r, 100));
      assert.not.ok(existsSync(orphan));
      // The sweep logs once its walk is done, after the unlink: wait for the line.
      assert.ok(await eventually(() => /removed 1 orphaned upload temp file/.test(again.output()), 3000), again.output());
    } finally {
      again.child.kill('SIGKILL');
    }
  } finally {
    await agent.cleanup();
  }
});

life('leaves the target intact when the disk fills up (tmpfs)', async () => {
  const agent = await startAgent();
  const mnt = join(agent.dir, 'small');
  mkdirSync(mnt);
  let mounted = false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mnt]);
    mounted = true;
    writeFileSync(join(mnt, 'target.txt'), OLD);
    const token = await agent.login();
    symlinkSync(mnt, join(agent.baseDir, 'small'));
    // The link leads outside baseDir, so use a config whose upload directory is the mount.
    await agent.stop();
    writeFileSync(agent.configFile, JSON.stringify({ ...JSON.parse(readFileSync(agent.configFile, 'utf8')), uploadDir: 'small' }));
    const running = await spawnAgent(agent.dir);
    try {
      const before = snapshot(mnt);
      const res = await upload(`http://127.0.0.1:${running.port}`, token, [
        { name: 'saveToPath', value: 'target.txt' },
        { name: 'myFile', filename: 'big', value: Buffer.alloc(600 * 1024, 'z') },
      ]);
      assert.is(res.status, 500);
      assert.equal(await res.json(), { error: 'Failed to create file on server: ENOSPC: no space left on device' });
      assert.equal(snapshot(mnt), before);
    } finally {
      running.child.kill('SIGKILL');
    }
  } finally {
    if (mounted) execFileSync('umount', ['-l', mnt]);
    await agent.cleanup();
  }
});

life.run();
