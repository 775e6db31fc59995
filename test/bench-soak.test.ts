// The soak for one minute against the built executable (bench-*: runs once, in the first pass).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT } from './helpers/agent.ts';

const soak = suite('soak');

soak('a minute of mixed load: no unexpected answer, descriptors and children come back, exit 0', async () => {
  assert.ok(existsSync(BIN), 'dist/device-agent is built');
  const child = spawn(process.execPath, [join(ROOT, 'soak/soak.mjs'), '--minutes', '1', '--interval', '2'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const code = await new Promise((r) => child.on('close', r));
  assert.is(code, 0, out);
  assert.match(out, /soak passed/);
  assert.match(out, /memory trend reported, not judged/);
  // An even count of samples in a third gives a half-way median ("median 20.5").
  assert.match(out, /fds: median \d+(\.5)? in the first third/);
  assert.match(out, /requests: \d+ \(/);
  const requests = Number(/requests: (\d+)/.exec(out)![1]);
  assert.ok(requests > 100, `only ${requests} requests in a minute`);
});

soak.run();
