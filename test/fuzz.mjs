// npm run fuzz: the property tests with many more cases and a fresh seed (printed, so a
// failure can be replayed with FUZZ_SEED=N FUZZ_RUNS=N npm run fuzz).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const seed = process.env.FUZZ_SEED ?? String(Math.floor(Math.random() * 2 ** 31));
const runs = process.env.FUZZ_RUNS ?? '3000';
console.log(`fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs}`);
const r = spawnSync(
  process.execPath,
  [join(root, 'node_modules/uvu/bin.js'), '-r', 'tsx', 'test', '^(hardening-(input|paths|bodies)|files-manage-fuzz)\\.test\\.ts$'],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: runs, TEST_AGENT: process.env.TEST_AGENT ?? 'source' },
  },
);
console.log(`fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs}`);
process.exit(r.status ?? 1);
