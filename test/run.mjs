// Runs the uvu suite twice: against the sources, then against the built executable
// (TEST_AGENT=bin), and closes with one "N passed, N failed" line.
//   node test/run.mjs [PATTERN]   PATTERN: a regex on test file names (default: all)
// Files named unit-*, package-* or bench-*.test.ts do not depend on how the agent is
// run, so they run in the first pass only.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const uvu = join(root, 'node_modules/uvu/bin.js');
const only = process.argv[2];

function pass(name, pattern, env) {
  return new Promise((resolve) => {
    console.log(`\n=== ${name} ===`);
    const child = spawn(process.execPath, [uvu, '-r', 'tsx', 'test', pattern], {
      cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => { out += d; process.stdout.write(d); });
    child.on('close', (code) => {
      const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
      const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      // A crash before uvu's summary counts as one failure.
      const failed = total - passed - skipped + (code !== 0 && total === passed + skipped ? 1 : 0);
      resolve({ passed, failed, skipped });
    });
  });
}

const sum = { passed: 0, failed: 0, skipped: 0 };
const add = (r) => { sum.passed += r.passed; sum.failed += r.failed; sum.skipped += r.skipped; };

const all = only ?? '\\.test\\.ts$';
add(await pass('sources', all, { TEST_AGENT: 'source' }));
if (!existsSync(join(root, 'dist/device-agent'))) {
  console.error('dist/device-agent is missing: run npm run build');
  sum.failed++;
} else {
  const e2e = only ?? '^(?!unit-|package-|bench-).*\\.test\\.ts$';
  add(await pass('built executable (dist/device-agent)', e2e, { TEST_AGENT: 'bin' }));
}
console.log(`\ntests: ${sum.passed} passed, ${sum.failed} failed${sum.skipped ? `, ${sum.skipped} skipped` : ''}`);
process.exit(sum.failed > 0 ? 1 : 0);
