// A small device's memory: the built executable in a memory cgroup (v1) capped at 160 MB
// logs in and takes 8 concurrent 50 MB uploads, all stored byte-identical, and stays
// alive. Needs root and /sys/fs/cgroup/memory; runs the built executable whatever the pass
// (it is in `once`), and is skipped without it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { BIN, makeDir, startAgent, type TestAgent } from './helpers/agent.ts';

const ROOT = '/sys/fs/cgroup/memory';
const LIMIT_MB = 160;
const usable = process.getuid?.() === 0 && existsSync(join(ROOT, 'cgroup.procs')) && existsSync(BIN);
const test = suite('memory cgroup');

function curlUpload(url: string, token: string, src: string, saveTo: string): Promise<string> {
  return new Promise((resolve) => {
    const c = spawn(
      'curl',
      [
        '-s',
        '-S',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '-H',
        `Authorization: Bearer ${token}`,
        '-H',
        'Expect:',
        '-F',
        `saveToPath=${saveTo}`,
        '-F',
        `myFile=@${src}`,
        `${url}/api/upload`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    c.stdout.on('data', (d) => {
      out += d;
    });
    c.on('close', () => resolve(out));
  });
}

(usable ? test : test.skip)(`a login and 8 concurrent 50 MB uploads fit in ${LIMIT_MB} MB`, async () => {
  process.env.TEST_AGENT = 'bin';
  const cg = join(ROOT, `device-agent-test-${process.pid}`);
  mkdirSync(cg);
  const src = join(makeDir('da-cg-src-'), 'src.bin');
  let agent: TestAgent | undefined;
  try {
    writeFileSync(join(cg, 'memory.limit_in_bytes'), String(LIMIT_MB * 1024 * 1024));
    writeFileSync(src, randomBytes(50e6));
    const want = createHash('sha256').update(readFileSync(src)).digest('hex');
    // A shell puts itself into the cgroup, then execs the agent: every byte it allocates counts.
    agent = await startAgent({ wrap: ['/bin/sh', '-c', `echo $$ > ${cg}/cgroup.procs && exec "$0" "$@"`] });
    assert.is(readFileSync(join(cg, 'cgroup.procs'), 'utf8').trim(), String(agent.child.pid));
    const token = await agent.login();
    const codes = await Promise.all(Array.from({ length: 8 }, (_, i) => curlUpload(agent!.url, token, src, `up-${i}.bin`)));
    assert.equal(codes, Array(8).fill('200'), agent.output().slice(-2000));
    for (let i = 0; i < 8; i++) {
      assert.is(
        createHash('sha256')
          .update(readFileSync(join(agent.baseDir, `up-${i}.bin`)))
          .digest('hex'),
        want,
        `up-${i}.bin`,
      );
    }
    assert.is(agent.child.exitCode, null);
    assert.is(agent.child.signalCode, null);
    assert.is((await fetch(`${agent.url}/api/v1/health`)).status, 200);
  } finally {
    await agent?.cleanup();
    rmSync(join(src, '..'), { recursive: true, force: true });
    try {
      rmdirSync(cg);
    } catch {
      /* the agent's exit is seen by the cgroup a moment later */ await new Promise((r) => setTimeout(r, 500));
      rmdirSync(cg);
    }
  }
});

test.run();
