// dagent --hosts FILE -j N: three agents (one over HTTPS with its pin, two reached by URL
// with the profile of that URL) and a dead one: one JSON line per host, exit code non-zero;
// a URL that no profile is for gets no token (a listener records what reaches it).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dagent, recorder, startClientAgent, tempHome, tokenProfile, type ClientAgent } from './helpers/dagent.ts';

type Ctx = { a: ClientAgent; b: ClientAgent; c: ClientAgent; home: string; deadPort: number; cUrl: string };
const hosts = suite<Ctx>('dagent --hosts');

hosts.before(async (ctx) => {
  ctx.home = tempHome();
  ctx.a = await startClientAgent(false);
  ctx.b = await startClientAgent(true);
  ctx.c = await startClientAgent(false);
  ctx.cUrl = ctx.c.clientUrl;
  await tokenProfile(ctx.a, ctx.home, 'a');
  await tokenProfile(ctx.b, ctx.home, 'b');
  await tokenProfile(ctx.c, ctx.home, 'c');
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  ctx.deadPort = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  // The dead device's profile: a's credential at a port where nothing listens.
  const file = join(ctx.home, 'dagent/profiles.json');
  const data = JSON.parse(readFileSync(file, 'utf8'));
  data.profiles.dead = { ...data.profiles.a, url: `http://127.0.0.1:${ctx.deadPort}` };
  writeFileSync(file, JSON.stringify(data));
  writeFileSync(
    join(ctx.home, 'hosts.txt'),
    `# the lab\na\nb   # over HTTPS, pinned\n\n${ctx.cUrl}\n${ctx.b.clientUrl}  # b's profile, its pin\ndead\n`,
  );
  for (const [agent, text] of [
    [ctx.a, 'from a'],
    [ctx.b, 'from b'],
    [ctx.c, 'from c'],
  ] as const) {
    mkdirSync(join(agent.baseDir, 'logs'));
    writeFileSync(join(agent.baseDir, 'logs/app.log'), text);
  }
});
hosts.after(async (ctx) => {
  for (const agent of [ctx.a, ctx.b, ctx.c]) await agent?.cleanup();
  if (ctx.home) rmSync(ctx.home, { recursive: true, force: true });
});

const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const byHost = (list: any[]) => Object.fromEntries(list.map((l) => [l.host, l]));

hosts('status: one JSON line per host, the dead one with its error; exit 4 (every failure could not connect)', async (ctx) => {
  const r = await dagent(['status', '--hosts', 'hosts.txt', '-j', '2', '--profile', 'a'], { home: ctx.home });
  assert.is(r.code, 4, r.stderr);
  assert.is(r.stderr, '');
  const all = lines(r.stdout);
  assert.is(all.length, 5);
  const got = byHost(all);
  assert.equal(Object.keys(got).sort(), ['a', 'b', ctx.cUrl, ctx.b.clientUrl, 'dead'].sort());
  for (const host of ['a', 'b', ctx.cUrl, ctx.b.clientUrl]) {
    assert.is(got[host].ok, true, host);
    assert.equal(Object.keys(got[host]), ['host', 'ok', 'result']);
    assert.is(typeof got[host].result.hostname, 'string');
    assert.is(got[host].result.recording.state, 'idle');
  }
  assert.equal(got.dead, {
    host: 'dead',
    ok: false,
    status: null,
    error: `could not connect to 127.0.0.1:${ctx.deadPort}: connection refused`,
  });
});

hosts(
  "get: each host's file in a directory of its own; an unknown profile and a missing file fail with their texts (exit 1)",
  async (ctx) => {
    writeFileSync(join(ctx.home, 'more.txt'), `a\nb\n${ctx.cUrl}\nnosuch\n`);
    rmSync(join(ctx.b.baseDir, 'logs/app.log'));
    const r = await dagent(['get', 'logs/app.log', 'out', '--hosts', 'more.txt', '--profile', 'a'], { home: ctx.home });
    assert.is(r.code, 1);
    const got = byHost(lines(r.stdout));
    assert.is(readFileSync(join(ctx.home, 'out/a/app.log'), 'utf8'), 'from a');
    assert.is(readFileSync(join(ctx.home, 'out', ctx.cUrl.replace(/[^A-Za-z0-9._-]+/g, '_'), 'app.log'), 'utf8'), 'from c');
    assert.equal(got.a.result, { path: 'logs/app.log', savedTo: join('out', 'a', 'app.log'), sizeBytes: 6, resumedFrom: 0 });
    assert.equal(got.b, { host: 'b', ok: false, status: 404, error: 'file not found at logs/app.log' });
    assert.equal(got.nosuch, {
      host: 'nosuch',
      ok: false,
      status: null,
      error: 'no profile "nosuch": log in first (dagent login URL --profile nosuch)',
    });
  },
);

hosts('a URL line gets only the token of a profile for that URL: none for a listener no profile is for (3)', async (ctx) => {
  const rec = await recorder('127.0.0.1', 'invalid or expired token');
  try {
    const stranger = `http://127.0.0.1:${rec.port}`;
    writeFileSync(join(ctx.home, 'urls.txt'), `${stranger}\n${ctx.a.clientUrl}\n`);
    const r = await dagent(['status', '--hosts', 'urls.txt', '--profile', 'b'], { home: ctx.home });
    assert.is(r.code, 3, r.stderr);
    const got = byHost(lines(r.stdout));
    assert.equal(got[stranger], {
      host: stranger,
      ok: false,
      status: null,
      error: `no profile for ${stranger}: log in first (dagent login ${stranger} --profile NAME)`,
    });
    assert.is(got[ctx.a.clientUrl].ok, true, 'the profile for a URL is found whatever --profile names');
    assert.equal(
      rec.heads.filter((h) => /^authorization:/im.test(h)),
      [],
      'a token reached the listener',
    );
    assert.is(rec.connections, 0);

    // Two profiles for one URL: --profile chooses; without a choice the line fails, naming both.
    const file = join(ctx.home, 'dagent/profiles.json');
    const saved = readFileSync(file, 'utf8');
    const data = JSON.parse(saved);
    data.profiles.a2 = data.profiles.a;
    writeFileSync(file, JSON.stringify(data));
    try {
      const chosen = await dagent(['status', '--hosts', 'urls.txt', '--profile', 'a2'], { home: ctx.home });
      assert.is(byHost(lines(chosen.stdout))[ctx.a.clientUrl].ok, true);
      const unsure = await dagent(['status', '--hosts', 'urls.txt', '--profile', 'b'], { home: ctx.home });
      assert.is(
        byHost(lines(unsure.stdout))[ctx.a.clientUrl].error,
        `profiles a, a2 are all for ${ctx.a.clientUrl}: name one with --profile, or in the hosts file`,
      );
    } finally {
      writeFileSync(file, saved);
    }
    assert.is(rec.connections, 0);
  } finally {
    await rec.close();
  }
});

hosts('interactive and streaming commands refuse --hosts (2)', async (ctx) => {
  for (const cmd of [['events'], ['login', 'https://x'], ['listen']]) {
    const r = await dagent([...cmd, '--hosts', 'hosts.txt'], { home: ctx.home });
    assert.is(r.code, 2, cmd[0]);
    assert.is(r.stderr, `dagent: dagent ${cmd[0]} runs on one device, not with --hosts\n`);
  }
});

hosts.run();
