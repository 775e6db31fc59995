// Build step, run by the Node binary the executable embeds (the cache is tied to its V8):
//   node build/sea/train.cjs BUNDLE OUT_CACHE
// Runs the agent's start on a throwaway config, has it answer one GET /api/v1/health,
// then writes V8's code cache of the bundle, which now holds every function that path
// compiled. V8 takes the cache only for the same source and options: BUNDLE is the
// asset build/sea/main.cjs compiles, with main.cjs's own compile() and codeCache().
'use strict';
const { randomBytes } = require('node:crypto');
const { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { dirname, join } = require('node:path');
const { codeCache, compile, run } = require('./main.cjs');

const [bundleFile, outFile] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'da-train-'));
const fail = (why) => {
  rmSync(dir, { recursive: true, force: true });
  process.stderr.write(`train: ${why}\n`);
  process.exit(1);
};
setTimeout(() => fail('the agent did not answer within 20 s'), 20_000).unref();

const probe = createServer().listen(0, '127.0.0.1', () => {
  const { port } = probe.address();
  probe.close(() => {
    mkdirSync(join(dir, 'files'));
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ host: '127.0.0.1', port, baseDir: 'files', usersFile: 'users.json', jwtSecretFile: 'jwt.secret' }),
    );
    writeFileSync(join(dir, 'users.json'), '{"users":[]}\n');
    writeFileSync(join(dir, 'jwt.secret'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    const source = readFileSync(bundleFile, 'utf8');
    const fn = compile(source);
    process.argv = [process.execPath, process.execPath, 'serve', '--config', join(dir, 'config.json')];
    run(fn, process.execPath, dirname(process.execPath));
    const poll = () =>
      fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
        async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) fail(`GET /api/v1/health answered ${res.status}`);
          writeFileSync(outFile, codeCache(source));
          rmSync(dir, { recursive: true, force: true });
          process.exit(0);
        },
        () => setTimeout(poll, 5),
      );
    poll();
  });
});
