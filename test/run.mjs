// Runs the suite by the passes of test/manifest.mjs, one uvu process per file (each with a
// timeout, its time printed), and closes with one "N passed, N failed, N skipped" line.
//   node test/run.mjs [--pass sources|bin] [--quick] [--jobs N] [PATTERN]   PATTERN: a regex on file names
//   npm run test:quick   the inner loop: the sources pass without the package, VM, bench and role
//                        files (--quick), which need a build, root and minutes each, N files at a time
// A file that fails (before its time limit) is run once more: if it then passes, its cases count as passed and it is
// named under "flaky" at the end (a failure that depends on timing, never hidden); if it
// fails again, it counts as failed.
// --jobs N runs N files at once, each file's output printed whole when it ends, the files
// that took longest last time first (test-artifacts/test-times.json). A file that
// failed is named again at the end with the tail of its output, so the last lines of a long
// run (all a CI log may keep) say what failed.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TIMEOUT_S, passes, timeouts } from './manifest.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const uvu = join(root, 'node_modules/uvu/bin.js');

const argv = process.argv.slice(2);
let only;
let quick = false;
let jobs = 1;
let pattern = /\.test\.ts$/;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--pass') only = argv[++i];
  else if (argv[i] === '--quick') quick = true;
  else if (argv[i] === '--jobs') jobs = Math.max(1, Number(argv[++i]) || 1);
  else pattern = new RegExp(argv[i]);
}
/** Left out of the inner loop: they build packages, boot a VM or run the bench. */
const SLOW = /^(package-|system-vm|bench-|fleet-role)/;
const files = readdirSync(join(root, 'test'))
  .filter((f) => f.endsWith('.test.ts') && pattern.test(f) && !(quick && SLOW.test(f)))
  .sort();

const strip = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');

/** One file in its own uvu process; a crash or a timeout before uvu's summary counts as one failure. */
function runFile(file, env) {
  const limit = (timeouts[file] ?? DEFAULT_TIMEOUT_S) * 1000;
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [uvu, '-r', 'tsx', 'test', `^${file.replace(/\./g, '\\.')}$`], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    let out = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, limit);
    child.stdout.on('data', (d) => {
      out += d;
      if (jobs === 1) process.stdout.write(d);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const plain = strip(out);
      const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      // uvu's Total counts the cases that ran: skipped ones are not in it.
      let failed = total - passed;
      if ((code !== 0 || timedOut) && failed === 0) failed = 1;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const why = timedOut ? ` TIMED OUT after ${limit / 1000} s` : '';
      const line = `--- ${file}: ${passed} passed, ${failed} failed, ${skipped} skipped (${seconds} s)${why}`;
      if (jobs > 1) process.stdout.write(out);
      console.log(line);
      resolve({ passed, failed, skipped, line, timedOut, tail: failed > 0 ? failureTail(plain) : '' });
    });
  });
}

/** What a failed file printed about its failures: uvu's FAIL blocks, else the last lines. */
function failureTail(plain) {
  const at = plain.indexOf('FAIL');
  const text = at >= 0 ? plain.slice(Math.max(0, plain.lastIndexOf('\n', at))) : plain;
  const lines = text.split('\n').filter((l) => l.trim() !== '' && !l.includes('node_modules/uvu'));
  return lines.slice(0, 40).join('\n');
}

/** Seconds each file took when it last ran, by pass and file. */
const timesFile = join(root, 'test-artifacts/test-times.json');
let times = {};
try {
  times = JSON.parse(readFileSync(timesFile, 'utf8'));
} catch {
  /* first run: no times yet */
}

/** Runs the files `jobs` at a time, the longest first when several run at once; results in file order. */
async function runAll(pass, list, env) {
  const key = (file) => `${pass}/${file}`;
  // Never run yet: a file with a long time limit is likely a long one.
  const guess = (file) => times[key(file)] ?? (timeouts[file] ?? DEFAULT_TIMEOUT_S) / 10;
  if (jobs > 1) list = [...list].sort((a, b) => guess(b) - guess(a));
  const results = new Array(list.length);
  let next = 0;
  const worker = async () => {
    while (next < list.length) {
      const i = next++;
      const started = Date.now();
      let r = await runFile(list[i], env);
      times[key(list[i])] = (Date.now() - started) / 1000;
      if (r.failed > 0 && !r.timedOut) {
        console.log(`--- ${list[i]}: failed, running it once more`);
        const again = await runFile(list[i], env);
        if (again.failed === 0) r = { ...again, flaky: r };
        else r = again;
      }
      results[i] = r;
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, list.length) }, worker));
  return results;
}

const sum = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
const flaky = [];
for (const pass of passes) {
  if (only && !pass.name.startsWith(only) && pass.env.TEST_AGENT !== only) continue;
  console.log(`\n=== ${pass.name} ===`);
  if (pass.needsBuild && !existsSync(join(root, 'dist/device-agent'))) {
    console.error('dist/device-agent is missing: run npm run build');
    sum.failed++;
    continue;
  }
  for (const r of await runAll(pass.name, files.filter(pass.includes), pass.env)) {
    sum.passed += r.passed;
    sum.failed += r.failed;
    sum.skipped += r.skipped;
    if (r.failed > 0) failures.push(`${pass.name} ${r.line}\n${r.tail}`);
    if (r.flaky) flaky.push(`${pass.name} ${r.flaky.line} (passed when run again)\n${r.flaky.tail}`);
  }
}
mkdirSync(dirname(timesFile), { recursive: true });
writeFileSync(timesFile, `${JSON.stringify(times, null, 1)}\n`);
if (flaky.length > 0) console.log(`\n=== flaky ===\n${flaky.join('\n\n')}`);
if (failures.length > 0) console.log(`\n=== failed ===\n${failures.join('\n\n')}`);
console.log(
  `\ntests: ${sum.passed} passed, ${sum.failed} failed, ${sum.skipped} skipped` +
    (flaky.length > 0 ? ` (${flaky.length} file(s) flaky: passed when run again)` : ''),
);
process.exit(sum.failed > 0 ? 1 : 0);
