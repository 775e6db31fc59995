// Downloads by sendfile(2) (src/files/sendfile.ts, src/native/addon.c) and the copy
// they fall back to: real agents, real sockets, a real noexec tmpfs.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { constants as osConstants } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compiledHelper, startAgent, type TestAgent, withNoexecTmpdir } from './helpers/agent.ts';
import { download } from './helpers/files.ts';
import { eventually, fdCount, rssKb } from './helpers/proc.ts';

const MiB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * The addon's code mapped: a file without a name (O_TMPFILE) in the agent's temp directory,
 * executable. (A dlopen refused by a noexec mount leaves a read-only page of it mapped.)
 */
const addonMapped = (pid: number) => /^\S+ r-xp .*\/#\d+ \(deleted\)$/m.test(readFileSync(`/proc/${pid}/maps`, 'utf8'));

/** The agent's note when downloads fall back to copying for good. */
const COPIED = 'downloads are copied through user space: sendfile(2) unavailable (';

interface RawDownload {
  status: number;
  length: number;
  body: Buffer;
  closedEarly: boolean;
}

/**
 * GET /api/download on a raw socket, read with pauses: `pauseAfter` body bytes arrive,
 * then reading stops for `pauseMs` (the agent's socket buffer fills) and `duringPause` runs.
 */
function rawDownload(
  agent: TestAgent,
  token: string,
  file: string,
  opts: { pauseAfter?: number; pauseMs?: number; duringPause?: () => void } = {},
): Promise<RawDownload> {
  return new Promise((resolve, reject) => {
    const sock = connect(agent.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let got = 0;
    let head: { status: number; length: number; at: number } | undefined;
    let paused = false;
    sock.on('data', (d) => {
      chunks.push(d);
      got += d.length;
      if (!head) {
        const all = Buffer.concat(chunks);
        const at = all.indexOf('\r\n\r\n');
        if (at === -1) return;
        const text = all.subarray(0, at).toString('latin1');
        head = {
          status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]),
          length: Number(/content-length: (\d+)/i.exec(text)?.[1]),
          at: at + 4,
        };
      }
      if (!paused && opts.pauseAfter !== undefined && got - head.at >= opts.pauseAfter) {
        paused = true;
        sock.pause();
        setTimeout(() => {
          opts.duringPause?.();
          sock.resume();
        }, opts.pauseMs ?? 200);
      }
    });
    sock.on('error', reject);
    sock.on('close', () => {
      if (!head) return reject(new Error('no response head'));
      const body = Buffer.concat(chunks).subarray(head.at);
      resolve({ status: head.status, length: head.length, body, closedEarly: body.length < head.length });
    });
    sock.write(
      `GET /api/download?filepath=${encodeURIComponent(file)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    );
  });
}

/**
 * docs/api.md#download, "a download streams: memory does not grow with file size or number of
 * downloads": 8 clients fetch a 48 MiB file at once and stop reading for a while, so
 * whatever the agent would hold of it piles up. Its peak RSS (VmHWM, reset first) may
 * grow by less than one file's size; holding the file per client would take 8 × 48 MiB.
 */
async function peakGrowthUnderSlowDownloads(agent: TestAgent, token: string): Promise<{ growthMiB: number; bodies: number[] }> {
  const file = join(agent.baseDir, 'streamed.bin');
  writeFileSync(file, '');
  truncateSync(file, 48 * MiB); // sparse: nothing written to disk
  const pid = agent.child.pid!;
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const before = rssKb(pid);
  const rs = await Promise.all(
    Array.from({ length: 8 }, () => rawDownload(agent, token, 'streamed.bin', { pauseAfter: MiB, pauseMs: 1500 })),
  );
  const peak = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return { growthMiB: (peak - before) / 1024, bodies: rs.map((r) => r.body.length) };
}

const sf = suite<{ agent: TestAgent; token: string; data: Buffer; mappedAtStart: boolean }>('sendfile downloads');
sf.before(async (ctx) => {
  ctx.agent = await startAgent();
  ctx.mappedAtStart = addonMapped(ctx.agent.child.pid!);
  // The login loads the addon too (it fixes the allocator's thresholds before the hash: src/native/memory.ts).
  ctx.token = await ctx.agent.login();
  ctx.data = randomBytes(12 * MiB);
  writeFileSync(join(ctx.agent.baseDir, 'big.bin'), ctx.data);
});
sf.after(async (ctx) => {
  await ctx.agent.cleanup();
});

sf(
  'the addon is loaded on first use, not at start, from a file without a name; no copy is logged',
  async ({ agent, token, data, mappedAtStart }) => {
    const pid = agent.child.pid!;
    assert.not.ok(mappedAtStart, 'addon mapped at start');
    const res = await download(agent.url, token, 'filepath=big.bin');
    assert.is(res.status, 200);
    assert.is(sha(Buffer.from(await res.arrayBuffer())), sha(data));
    assert.ok(addonMapped(pid), 'addon not mapped after a download');
    assert.not.match(agent.output(), /copied through user space/);
  },
);

sf('ranges from anywhere in the file arrive whole', async ({ agent, token, data }) => {
  for (const [start, end] of [
    [0, 0],
    [1, 16 * 1024],
    [5 * MiB + 3, 9 * MiB + 7],
    [data.length - 10, data.length - 1],
  ] as const) {
    const res = await download(agent.url, token, 'filepath=big.bin', { Range: `bytes=${start}-${end}` });
    assert.is(res.status, 206);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(data.subarray(start, end + 1)), `bytes=${start}-${end}`);
  }
});

sf('a slow reader (the socket buffer full again and again) gets every byte, in order', async ({ agent, token, data }) => {
  const r = await rawDownload(agent, token, 'big.bin', { pauseAfter: MiB, pauseMs: 300 });
  assert.is(r.status, 200);
  assert.is(r.length, data.length);
  assert.is(sha(r.body), sha(data));
});

sf('two pipelined downloads on one connection arrive whole and in order', async ({ agent, token, data }) => {
  const sock = connect(agent.port, '127.0.0.1');
  const chunks: Buffer[] = [];
  sock.on('data', (d) => chunks.push(d));
  const req = (range: string, close: boolean) =>
    `GET /api/download?filepath=big.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
    `Range: bytes=${range}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
  sock.write(req('0-', false) + req(`${MiB}-${3 * MiB - 1}`, true));
  await new Promise((r) => sock.on('close', r));
  const all = Buffer.concat(chunks);
  const first = all.indexOf('\r\n\r\n') + 4;
  assert.match(all.subarray(0, first).toString('latin1'), /^HTTP\/1\.1 206 [^]*content-length: 12582912\r\n/i);
  assert.ok(all.subarray(first, first + data.length).equals(data), 'first body');
  const rest = all.subarray(first + data.length);
  const second = rest.indexOf('\r\n\r\n') + 4;
  assert.match(rest.subarray(0, second).toString('latin1'), /^HTTP\/1\.1 206 [^]*content-range: bytes 1048576-3145727\/12582912\r\n/i);
  assert.ok(rest.subarray(second).equals(data.subarray(MiB, 3 * MiB)), 'second body');
});

sf('the logged bytes are the bytes the client received', async ({ agent, token, data }) => {
  const sock = connect(agent.port, '127.0.0.1');
  let received = 0;
  sock.on('data', (d) => {
    received += d.length;
  });
  sock.write(
    `GET /api/download?filepath=big.bin&bytes-check=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
  );
  await new Promise((r) => sock.on('close', r));
  assert.ok(received > data.length);
  assert.ok(
    await eventually(
      () =>
        / GET \/api\/download 200 \d+ /.test(
          agent
            .output()
            .split('\n')
            .filter((l) => l.includes('/api/download 200'))
            .pop() ?? '',
        ),
      2000,
    ),
  );
  const line = agent
    .output()
    .split('\n')
    .filter((l) => l.includes('GET /api/download 200'))
    .pop()!;
  assert.is(Number(/ 200 (\d+) /.exec(line)?.[1]), received, line);
});

sf(
  'a file that shrinks while being sent: the connection is cut short, the log says so, no descriptor is left',
  async ({ agent, token }) => {
    const file = join(agent.baseDir, 'shrinks.bin');
    writeFileSync(file, randomBytes(40 * MiB));
    await (await fetch(`${agent.url}/api/v1/health`, { headers: { Connection: 'close' } })).arrayBuffer();
    const fds = fdCount(agent.child.pid!);
    const r = await rawDownload(agent, token, 'shrinks.bin', {
      pauseAfter: MiB,
      pauseMs: 300,
      duringPause: () => truncateSync(file, 2 * MiB),
    });
    assert.is(r.status, 200);
    assert.is(r.length, 40 * MiB);
    assert.ok(r.closedEarly, `received ${r.body.length} of ${r.length} bytes`);
    const note = /download shrinks\.bin: failed to read file: file shrank while being sent \(\d+ of 41943040 bytes\)/;
    assert.ok(await eventually(() => note.test(agent.output()), 2000), agent.output());
    assert.ok(
      await eventually(() => fdCount(agent.child.pid!) <= fds, 5000),
      `descriptors: ${fds} before, ${fdCount(agent.child.pid!)} after`,
    );
    const again = await download(agent.url, token, 'filepath=shrinks.bin');
    assert.is(again.status, 200);
    assert.is((await again.arrayBuffer()).byteLength, 2 * MiB);
  },
);

sf('8 slow clients of a 48 MiB file: the agent memory grows by less than one file', async ({ agent, token }) => {
  const { growthMiB, bodies } = await peakGrowthUnderSlowDownloads(agent, token);
  assert.equal(bodies, Array(8).fill(48 * MiB));
  assert.ok(growthMiB < 48, `peak RSS grew by ${growthMiB.toFixed(1)} MiB`);
});

sf.run();

const noexec = suite('sendfile unavailable');

noexec('temp directory mounted noexec: downloads are copied, whole; the log says why, once', async () => {
  await withNoexecTmpdir(async (tmp) => {
    const agent = await startAgent({ env: { TMPDIR: tmp } });
    try {
      const data = randomBytes(5 * MiB + 17);
      writeFileSync(join(agent.baseDir, 'big.bin'), data);
      const token = await agent.login();
      for (let i = 0; i < 2; i++) {
        const res = await download(agent.url, token, 'filepath=big.bin');
        assert.is(res.status, 200);
        assert.is(sha(Buffer.from(await res.arrayBuffer())), sha(data));
      }
      const part = await download(agent.url, token, 'filepath=big.bin', { Range: 'bytes=3-2000000' });
      assert.ok(Buffer.from(await part.arrayBuffer()).equals(data.subarray(3, 2000001)));
      const { growthMiB, bodies } = await peakGrowthUnderSlowDownloads(agent, token);
      assert.equal(bodies, Array(8).fill(48 * MiB));
      assert.ok(growthMiB < 48, `peak RSS grew by ${growthMiB.toFixed(1)} MiB while copying`);
      const notes = agent
        .output()
        .split('\n')
        .filter((l) => l.includes(COPIED));
      assert.is(notes.length, 1, agent.output());
      assert.not.ok(addonMapped(agent.child.pid!));
    } finally {
      await agent.cleanup();
    }
  });
});

const denySyscall = () => compiledHelper('deny-syscall');

/**
 * sendfile(2) refused by a seccomp filter, as a unit's SystemCallFilter= or a container's
 * profile refuses it: ENOSYS and EPERM hold for the whole process (copy from then on, say
 * so once); EINVAL is what a file system without sendfile answers (copy that download).
 */
for (const [errno, process_wide] of [
  ['ENOSYS', true],
  ['EPERM', true],
  ['EINVAL', false],
] as const) {
  noexec(
    `sendfile(2) refused with ${errno}: every download arrives whole, by copying${process_wide ? '; the log says why, once' : ''}`,
    async () => {
      const agent = await startAgent({ wrap: [denySyscall(), 'sendfile', String(osConstants.errno[errno])] });
      try {
        const data = randomBytes(3 * MiB + 5);
        writeFileSync(join(agent.baseDir, 'big.bin'), data);
        const token = await agent.login();
        const fds = fdCount(agent.child.pid!);
        for (let i = 0; i < 3; i++) {
          const res = await download(agent.url, token, 'filepath=big.bin');
          assert.is(res.status, 200);
          assert.is(sha(Buffer.from(await res.arrayBuffer())), sha(data));
        }
        const part = await download(agent.url, token, 'filepath=big.bin', { Range: 'bytes=100-1500000' });
        assert.is(part.status, 206);
        assert.ok(Buffer.from(await part.arrayBuffer()).equals(data.subarray(100, 1500001)));
        // The addon loaded and tried: the refusal came from the kernel's filter, not a noexec mount.
        assert.ok(addonMapped(agent.child.pid!));
        assert.ok(
          await eventually(() => fdCount(agent.child.pid!) <= fds, 5000),
          `descriptors: ${fds} before, ${fdCount(agent.child.pid!)} after`,
        );
        const notes = agent
          .output()
          .split('\n')
          .filter((l) => l.includes(COPIED));
        if (process_wide) {
          assert.is(notes.length, 1, agent.output());
          assert.ok(notes[0]!.includes(`${COPIED}sendfile refused: ${errno})`), notes[0]);
        } else {
          assert.is(notes.length, 0, agent.output());
        }
        assert.not.match(agent.output(), /failed to read file/);
      } finally {
        await agent.cleanup();
      }
    },
  );
}

noexec.run();
