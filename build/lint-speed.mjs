// npm run lint: the speed rules of docs/performance.md ("Start-up") as checks, not a memory.
// Each rule names what it refuses in the agent's code (src/, not the browser's src/browser/),
// the one way to do it instead, and why. Comments are not code: a line that starts as one
// is skipped. Prints each line found, exits 1 when there is one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

const RULES = [
  {
    pattern: /\.toISOString\(/,
    instead: 'isoTime() (src/util/time.ts)',
    why: "the first Date method sets up ICU's time zone: 7.5 ms of a start and ~3.6 MB resident",
  },
  {
    pattern: /\bperformance\.now\(|['"]node:perf_hooks['"]/,
    instead: 'monotonicMs() (src/util/clock.ts)',
    why: 'node:perf_hooks brings nine modules into the process (~1.1 ms of a start)',
  },
  {
    pattern: /\bwatchFile\(/,
    instead: 'pollStamp() (src/util/file-stamp.ts)',
    why: "fs.watchFile loads Node's watcher modules at start",
  },
];

function files(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (path !== join(ROOT, 'src/browser')) out.push(...files(path));
    } else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const COMMENT = /^\s*(\/\/|\/\*|\*)/;
let found = 0;
for (const file of files(join(ROOT, 'src'))) {
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, i) => {
    if (COMMENT.test(line)) return;
    for (const rule of RULES) {
      if (!rule.pattern.test(line)) continue;
      found++;
      console.error(`${relative(ROOT, file)}:${i + 1}: use ${rule.instead}: ${rule.why} (docs/performance.md, Start-up)`);
    }
  });
}
process.exit(found ? 1 : 0);
