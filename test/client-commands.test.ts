// dagent's commands against the built agent, TLS off and on: each --json result is what the
// API answers, files go up and down byte for byte, errors are the API's text with the
// documented exit codes. Commands whose routes the agent does not serve yet are skipped.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { startVirtualMic, type VirtualMic } from './helpers/pulse.ts';
import {
  COMMAND_NAMES,
  DAGENT,
  dagent,
  dagentProcess,
  hasRoute,
  startClientAgent,
  tempHome,
  tokenProfile,
  type ClientAgent,
} from './helpers/dagent.ts';

type Ctx = { agent: ClientAgent; home: string; token: string; mic: VirtualMic };

async function api(agent: ClientAgent, token: string, path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(`${agent.url}${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, ...init.headers } });
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

/** The shape of a JSON value: its keys, recursively (figures like uptime move between two reads). */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shape);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, shape((v as any)[k])]),
    );
  return typeof v;
}

function define(tls: boolean): void {
  const mode = tls ? 'TLS on' : 'TLS off';
  const test = suite<Ctx>(`dagent commands, ${mode}`);
  const when = (route: string) => (hasRoute(route) ? test : test.skip);
  const run = (ctx: Ctx, args: string[], input?: string) => dagent(args, { home: ctx.home, input });

  test.before(async (ctx) => {
    // A paced microphone (PulseAudio's null sink) for listen; recordings use ALSA's null device.
    ctx.mic = startVirtualMic();
    ctx.agent = await startClientAgent(tls, { env: ctx.mic.env });
    ctx.home = tempHome();
    ctx.token = await ctx.agent.login();
    await tokenProfile(ctx.agent, ctx.home);
  });
  test.after(async (ctx) => {
    await ctx.agent?.cleanup();
    await ctx.mic?.stop();
    if (ctx.home) rmSync(ctx.home, { recursive: true, force: true });
  });

  test('status --json is the device status record of the API', async (ctx) => {
    const r = await run(ctx, ['status', '--json']);
    assert.is(r.code, 0, r.stderr);
    const mine = JSON.parse(r.stdout);
    const theirs = await api(ctx.agent, ctx.token, '/api/v1/devicestatus/get');
    assert.equal(shape(mine), shape(theirs));
    for (const k of ['hostname', 'platform', 'distro', 'release', 'kernel', 'arch', 'recording']) assert.equal(mine[k], theirs[k], k);
    assert.equal(mine.cpu.model, theirs.cpu.model);
    assert.is(mine.memory.totalBytes, theirs.memory.totalBytes);
    assert.is(mine.agent.version, theirs.agent.version);
    assert.is(r.stderr, '');
  });

  test('status with standard output not a terminal prints the same JSON without --json', async (ctx) => {
    const r = await run(ctx, ['status']);
    assert.is(r.code, 0, r.stderr);
    assert.is(JSON.parse(r.stdout).hostname, (await api(ctx.agent, ctx.token, '/api/v1/devicestatus/get')).hostname);
  });

  test('ls --json is the API listing; a file is 1 with its text, a path outside is 3', async (ctx) => {
    const base = ctx.agent.baseDir;
    mkdirSync(join(base, 'tree/sub'), { recursive: true });
    writeFileSync(join(base, 'tree/a.txt'), 'alpha');
    writeFileSync(join(base, 'tree/b.bin'), randomBytes(1000));
    for (const [args, path] of [
      [['ls', '--json'], ''],
      [['ls', 'tree', '--json'], 'tree'],
      [['ls', 'tree/sub'], 'tree/sub'],
    ] as const) {
      const r = await run(ctx, [...args]);
      assert.is(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout), await api(ctx.agent, ctx.token, `/api/v1/files/list?path=${encodeURIComponent(path)}`));
    }
    const file = await run(ctx, ['ls', 'tree/a.txt']);
    assert.is(file.code, 1);
    assert.is(file.stderr, 'dagent: tree/a.txt is not a directory\n');
    const out = await run(ctx, ['ls', '../']);
    assert.is(out.code, 3);
    assert.is(out.stderr, 'dagent: file path is not allowed\n');
  });

  test('get saves the bytes (to a name, into a directory, to standard output); a missing file is 1', async (ctx) => {
    const data = randomBytes(3 * 1024 * 1024 + 17);
    mkdirSync(join(ctx.agent.baseDir, 'dl'), { recursive: true });
    writeFileSync(join(ctx.agent.baseDir, 'dl/data.bin'), data);
    const r = await run(ctx, ['get', 'dl/data.bin', 'copy.bin', '--json']);
    assert.is(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout), { path: 'dl/data.bin', savedTo: 'copy.bin', sizeBytes: data.length, resumedFrom: 0 });
    assert.ok(readFileSync(join(ctx.home, 'copy.bin')).equals(data));
    assert.not.ok(existsSync(join(ctx.home, 'copy.bin.dagent')), 'the control file stays after a whole download');

    mkdirSync(join(ctx.home, 'into'));
    const d = await run(ctx, ['get', 'dl/data.bin', 'into']);
    assert.is(d.code, 0, d.stderr);
    assert.is(d.stdout, '');
    assert.is(d.stderr, `saved ${join('into', 'data.bin')} (3.15 MB)\n`);
    assert.ok(readFileSync(join(ctx.home, 'into/data.bin')).equals(data));

    const child = dagentProcess(['get', 'dl/data.bin', '-'], { home: ctx.home });
    child.stdin!.end();
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => chunks.push(c));
    const code = await new Promise((r) => child.on('close', r));
    assert.is(code, 0);
    assert.ok(Buffer.concat(chunks).equals(data));

    const missing = await run(ctx, ['get', 'dl/nope.bin']);
    assert.is(missing.code, 1);
    assert.is(missing.stderr, 'dagent: file not found at dl/nope.bin\n');
  });

  test('put sends several files into a directory, one under a name; several onto a file name is 1', async (ctx) => {
    const files = ['one.bin', 'two.txt'].map((name, i) => {
      const data = randomBytes(200_000 + i);
      writeFileSync(join(ctx.home, name), data);
      return { name, data };
    });
    mkdirSync(join(ctx.agent.baseDir, 'up'), { recursive: true });
    const r = await run(ctx, ['put', 'one.bin', 'two.txt', 'up/', '--json']);
    assert.is(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout), {
      message: 'Uploaded successfully',
      files: ['one.bin', 'two.txt'],
      saveToPath: 'up/',
      sizeBytes: 400_001,
    });
    for (const f of files) assert.ok(readFileSync(join(ctx.agent.baseDir, 'up', f.name)).equals(f.data), f.name);

    const one = await run(ctx, ['put', 'one.bin', 'up/renamed.bin']);
    assert.is(one.code, 0, one.stderr);
    assert.is(one.stderr, 'uploaded one.bin (200 kB) to up/renamed.bin\n');
    assert.ok(readFileSync(join(ctx.agent.baseDir, 'up/renamed.bin')).equals(files[0]!.data));

    const bad = await run(ctx, ['put', 'one.bin', 'two.txt', 'up/file.bin']);
    assert.is(bad.code, 1);
    assert.is(bad.stderr, 'dagent: several files need a directory as saveToPath\n');
    assert.not.ok(existsSync(join(ctx.agent.baseDir, 'up/file.bin')));
  });

  test('record --wait --get: the finished record of the API and the file, byte for byte; stop when idle is 1', async (ctx) => {
    const r = await run(ctx, ['record', '--duration', '1', '--format', 'wav', '--get', 'take.wav', '--json']);
    assert.is(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    const { savedTo, ...record } = result;
    assert.is(savedTo, 'take.wav');
    assert.equal(record, await api(ctx.agent, ctx.token, '/api/v1/audiofiles/audiorecordstatus'));
    assert.is(record.state, 'finished');
    assert.ok(readFileSync(join(ctx.home, 'take.wav')).equals(readFileSync(join(ctx.agent.baseDir, record.file))));

    const stop = await run(ctx, ['stop']);
    assert.is(stop.code, 1);
    assert.is(stop.stderr, 'dagent: no recording is in progress\n');
  });

  test('events --json: one JSON line per event, the recording record and a status first', async (ctx) => {
    const child = dagentProcess(['events', '--json'], { home: ctx.home });
    child.stdin!.end();
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    const lines = await new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no two events: ${out} ${err}`)), 15_000);
      child.stdout!.on('data', (d) => {
        out += d;
        const l = out.split('\n').filter(Boolean);
        if (l.length >= 2) {
          clearTimeout(timer);
          resolve(l);
        }
      });
    });
    child.kill('SIGINT');
    const code = await new Promise((r) => child.on('close', r));
    assert.is(code, 0, err);
    const [first, second] = lines.map((l) => JSON.parse(l));
    assert.is(first.event, 'recording');
    assert.equal(first.data, await api(ctx.agent, ctx.token, '/api/v1/audiofiles/audiorecordstatus'));
    assert.is(second.event, 'status');
    assert.equal(shape(second.data), shape(await api(ctx.agent, ctx.token, '/api/v1/devicestatus/get')));
  });

  test('a reader that goes away (events --json | head -1, get - | head -c) ends dagent quietly', async (ctx) => {
    writeFileSync(join(ctx.agent.baseDir, 'pipe.bin'), randomBytes(4 * 1024 * 1024));
    for (const args of [
      ['events', '--json'],
      ['get', 'pipe.bin', '-'],
    ]) {
      const line = `'${process.execPath}' '${DAGENT}' ${args.join(' ')} | head -c 100 > /dev/null; echo "dagent=\${PIPESTATUS[0]}"`;
      const r = await new Promise<{ out: string; err: string }>((resolve) => {
        execFile(
          'bash',
          ['-c', line],
          { env: { ...process.env, XDG_CONFIG_HOME: ctx.home, DAGENT_PROFILE: '' }, timeout: 20_000 },
          (_e, out, err) => resolve({ out, err }),
        );
      });
      assert.is(r.err, '', args.join(' '));
      assert.is(r.out, 'dagent=0\n', args.join(' '));
    }
  });

  when('/api/v1/files/mkdir')('mkdir, mv (--force), rm (-r): the API answers and the tree on disk', async (ctx) => {
    const base = ctx.agent.baseDir;
    const mk = await run(ctx, ['mkdir', 'm/a/b', '--json']);
    assert.is(mk.code, 0, mk.stderr);
    assert.equal(JSON.parse(mk.stdout), { path: 'm/a/b' });
    writeFileSync(join(base, 'm/a/b/f.txt'), 'f');
    writeFileSync(join(base, 'm/g.txt'), 'g');
    const mv = await run(ctx, ['mv', 'm/a/b/f.txt', 'm/h.txt', '--json']);
    assert.is(mv.code, 0, mv.stderr);
    assert.equal(JSON.parse(mv.stdout), { path: 'm/h.txt' });
    const clash = await run(ctx, ['mv', 'm/h.txt', 'm/g.txt']);
    assert.is(clash.code, 1);
    assert.is(clash.stderr, 'dagent: m/g.txt already exists\n');
    const forced = await run(ctx, ['mv', '--force', 'm/h.txt', 'm/g.txt']);
    assert.is(forced.code, 0, forced.stderr);
    assert.is(readFileSync(join(base, 'm/g.txt'), 'utf8'), 'f');
    const full = await run(ctx, ['rm', 'm']);
    assert.is(full.code, 1);
    assert.is(full.stderr, 'dagent: directory is not empty\n');
    const gone = await run(ctx, ['rm', '-r', 'm', '--json']);
    assert.is(gone.code, 0, gone.stderr);
    assert.equal(JSON.parse(gone.stdout), { path: 'm', deleted: true });
    assert.not.ok(existsSync(join(base, 'm')));
    const missing = await run(ctx, ['rm', 'm']);
    assert.is(missing.code, 1);
    assert.is(missing.stderr, 'dagent: file not found at m\n');
  });

  when('/api/v1/audio/devices')('devices --json and level --json are the API answers', async (ctx) => {
    const d = await run(ctx, ['devices', '--json']);
    assert.is(d.code, 0, d.stderr);
    assert.equal(JSON.parse(d.stdout), await api(ctx.agent, ctx.token, '/api/v1/audio/devices'));
    const l = await run(ctx, ['level', '--seconds', '0.2', '--json']);
    assert.is(l.code, 0, l.stderr);
    assert.equal(shape(JSON.parse(l.stdout)), shape(await api(ctx.agent, ctx.token, '/api/v1/audio/level?seconds=0.2')));
  });

  when('/api/v1/audio/live')('listen --device pulse --output: a wav stream from a paced microphone until interrupted', async (ctx) => {
    const child = dagentProcess(['listen', '--device', 'pulse', '--output', 'live.wav'], { home: ctx.home });
    child.stdin!.end();
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    const closed = new Promise<number | null>((r) => child.on('close', r));
    const file = join(ctx.home, 'live.wav');
    const end = Date.now() + 15_000;
    while (!(existsSync(file) && readFileSync(file).length > 48_000) && Date.now() < end && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill('SIGINT');
    assert.is(await closed, 0, err);
    assert.match(err, /^wrote [\d.]+ [kM]?B to live\.wav\n$/);
    assert.ok(readFileSync(file).length > 48_000);
    assert.is(readFileSync(file).subarray(0, 4).toString('latin1'), 'RIFF');
  });

  when('/api/v1/tokens')('token create/list/revoke: the API records; a revoked token is refused (3)', async (ctx) => {
    const c = await run(ctx, ['token', 'create', 'ci-test', '--scopes', 'status', '--expires-days', '2', '--json']);
    assert.is(c.code, 0, c.stderr);
    const created = JSON.parse(c.stdout);
    assert.match(created.token, /^dat_[A-Za-z0-9_-]{43}$/);
    assert.equal(created.scopes, ['status']);
    const l = await run(ctx, ['token', 'list', '--json']);
    assert.is(l.code, 0, l.stderr);
    assert.equal(JSON.parse(l.stdout), await api(ctx.agent, ctx.token, '/api/v1/tokens'));
    const plain = await run(ctx, ['token', 'create', 'ci-text']);
    assert.match(plain.stdout, /^dat_[A-Za-z0-9_-]{43}\n$/);
    const rv = await run(ctx, ['token', 'revoke', 'ci-test']);
    assert.is(rv.code, 0, rv.stderr);
    const home2 = tempHome();
    try {
      const t = await dagent(['login', ctx.agent.clientUrl, '--token-stdin', ...(ctx.agent.pin ? ['--pin', ctx.agent.pin] : [])], {
        home: home2,
        input: `${created.token}\n`,
      });
      assert.is(t.code, 0, t.stderr);
      // Refused within 2 s of the revocation.
      let s = await dagent(['status'], { home: home2 });
      for (const end = Date.now() + 5000; s.code === 0 && Date.now() < end; ) s = await dagent(['status'], { home: home2 });
      assert.is(s.code, 3);
      assert.match(s.stderr, /^dagent: .+\n\(the stored token was refused: log in again with dagent login\)\n$/);
    } finally {
      rmSync(home2, { recursive: true, force: true });
    }
  });

  when('/api/v1/users')('users --json is the API list', async (ctx) => {
    const u = await run(ctx, ['users', '--json']);
    assert.is(u.code, 0, u.stderr);
    assert.equal(JSON.parse(u.stdout), await api(ctx.agent, ctx.token, '/api/v1/users'));
  });

  test.run();
}

define(false);
define(true);

const usage = suite<{ home: string }>('dagent usage');
usage.before((ctx) => {
  ctx.home = tempHome();
});
usage.after((ctx) => rmSync(ctx.home, { recursive: true, force: true }));

usage('every command has --help with an example, exit 0', async ({ home }) => {
  for (const name of COMMAND_NAMES) {
    const r = await dagent([...name.split(' '), '--help'], { home });
    assert.is(r.code, 0, name);
    assert.match(r.stdout, new RegExp(`^Usage: dagent ${name}`, 'm'), name);
    assert.match(r.stdout, /^Examples:\n {2}\$ dagent /m, name);
  }
  const top = await dagent(['--help'], { home });
  assert.is(top.code, 0);
  for (const name of COMMAND_NAMES) assert.match(top.stdout, new RegExp(`^ {2}${name} `, 'm'));
});

usage("usage mistakes exit 2 and name the command's help; no profile is 3", async ({ home }) => {
  const cases: Array<[string[], string]> = [
    [['get'], 'dagent: usage: dagent get PATH [DEST]; see dagent get --help\n'],
    [['frobnicate'], 'dagent: unknown command "frobnicate"; see dagent --help\n'],
    [['schedule'], 'dagent: "schedule" needs one of schedule show, schedule set, schedule clear, schedule preview; see dagent --help\n'],
    [['token'], 'dagent: "token" needs one of token create, token list, token revoke; see dagent --help\n'],
    [['token', 'frob'], 'dagent: unknown command "token frob"; use one of token create, token list, token revoke; see dagent --help\n'],
    [['status', '--bogus'], "dagent: Unknown option '--bogus'; see dagent status --help\n"],
    [['record'], 'dagent: --duration S is required\n'],
    [['record', '--duration', '1', '--format', 'ogg'], 'dagent: --format must be one of flac, wav, mp3\n'],
  ];
  for (const [args, text] of cases) {
    const r = await dagent(args, { home });
    assert.is(r.code, 2, args.join(' '));
    assert.is(r.stderr, text);
  }
  const none = await dagent(['status'], { home });
  assert.is(none.code, 3);
  assert.is(none.stderr, 'dagent: no profile "default": log in first (dagent login URL)\n');
});

usage.run();
