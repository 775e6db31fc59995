#!/usr/bin/env node
// Rewrites citations of documents that are not in this repository ("CONTRACT §6",
// "spec §7", "spec 4.6", "issue 22, item 4") into references to the section of docs/
// that now states the rule, as docs/citations.json maps them. In code and other text a
// citation becomes the path (`docs/api.md#files`, or a narrower section when the line names
// one: see "_refine" in the map); in Markdown a relative link named by
// the target's heading (`[Files](api.md#files)`). A heading that held a citation loses
// it, and links to the heading's old anchor are moved to the new one.
//
// Safe to run again: a tree without citations is left unchanged, and files added later
// with the same forms are rewritten the same way.
//
//   node docs/tools/replace-citations.mjs              dry run: a summary of what would change
//   node docs/tools/replace-citations.mjs --diff       ... and each changed line, before and after
//   node docs/tools/replace-citations.mjs --write      rewrite the files
//   node docs/tools/replace-citations.mjs --check      exit 1 when any citation is left (for CI)
//   node docs/tools/replace-citations.mjs --self-test  checks the rewriting on examples of every form
//   ... [PATH...]                                      only these files or directories
//
// Exit codes: 0 done (or nothing left, for --check); 1 citations left (--check) or
// citations with no entry in the map (any mode); 2 usage.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = resolve(dirname(SELF), '..', '..');
const MAP_FILE = join(ROOT, 'docs', 'citations.json');

// ---------------------------------------------------------------------------------------
// Finding citations

/**
 * One regex for every form, so overlapping forms are taken once, longest first:
 *  - CONTRACT §N with lists and ranges: "CONTRACT §4, §5, §8 and §11", "CONTRACT §3-§5",
 *    also "contract section 9";
 *  - spec §N, spec §N.M, spec N.M (a plain "spec 2" is not a citation);
 *  - issue N, issue #N, with an item: "issue 22, item 4", "issue 22 item 5", and the item
 *    on the next comment line ("issue 22,\n// item 3").
 * Whitespace between the parts may include a line break (Markdown wraps lines).
 */
const NUM_LIST = String.raw`(?:\s*(?:,|and|&)\s*§\s*\d+(?:\.\d+)?|\s*(?:-|–|to)\s*§?\s*\d+(?:\.\d+)?)*`;
const CITATION = new RegExp(
  [
    String.raw`(?<contract>\b(?:CONTRACT|[Cc]ontract)\s*(?:§|section\s)\s*\d+${NUM_LIST})`,
    String.raw`(?<spec>\bspec\s*(?:§\s*\d+(?:\.\d+)?|\s\d+\.\d+)${NUM_LIST})`,
    String.raw`(?<issue>(?<project>\b(?:systemd|[Nn]ode(?:\.js)?|V8|nodejs\/node|esbuild|uvu)\s+)?\b[Ii]ssue\s*#?\d+(?:,?\s*(?:(?:\/\/|#|\*)\s*)?item\s+\d+)?)`,
  ].join('|'),
  'g',
);

/** The normalized keys a citation's text stands for ("CONTRACT §3-§5" → three keys). */
export function keysOf(kind, text) {
  if (kind === 'issue') {
    const m = /[Ii]ssue\s*#?(\d+)(?:,?\s*(?:(?:\/\/|#|\*)\s*)?item\s+(\d+))?/.exec(text);
    return [m[2] ? `issue ${m[1]} item ${m[2]}` : `issue ${m[1]}`];
  }
  const body = text.replace(kind === 'contract' ? /^(?:CONTRACT|[Cc]ontract)\s*(?:§|section\s)\s*/ : /^spec\s*§?\s*/, '');
  const parts = [];
  const re = /(\d+(?:\.\d+)?)|(-|–|to)/g;
  let m;
  let range = false;
  while ((m = re.exec(body))) {
    if (m[2]) { range = true; continue; }
    const n = m[1];
    const prev = parts[parts.length - 1];
    if (range && prev !== undefined && !n.includes('.') && !prev.includes('.')) {
      for (let i = Number(prev) + 1; i <= Number(n); i++) parts.push(String(i));
    } else {
      parts.push(n);
    }
    range = false;
  }
  if (kind === 'contract') return parts.map((n) => `CONTRACT §${n}`);
  return parts.map((n) => (n.includes('.') ? `spec ${n}` : `spec §${n}`));
}

// ---------------------------------------------------------------------------------------
// Headings and anchors (GitHub's rule: lower case, drop punctuation but - and _, spaces to -)

export const slug = (heading) =>
  heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

const headingCache = new Map();
/** The title of the heading `anchor` names in `file` (repository-relative), or undefined. */
function headingTitle(file, anchor) {
  if (!headingCache.has(file)) {
    const titles = new Map();
    const abs = join(ROOT, file);
    if (existsSync(abs)) {
      let inFence = false;
      for (const line of readFileSync(abs, 'utf8').split('\n')) {
        if (/^\s*```/.test(line)) inFence = !inFence;
        const h = !inFence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
        if (h) {
          const text = h[1].replace(/`/g, '');
          let s = slug(h[1]);
          let n = 1;
          while (titles.has(s)) s = `${slug(h[1])}-${n++}`;
          titles.set(s, text);
        }
      }
    }
    headingCache.set(file, titles);
  }
  return headingCache.get(file).get(anchor);
}

// ---------------------------------------------------------------------------------------
// Rewriting one file

const isMarkdown = (file) => /\.(md|markdown)$/i.test(file);

function linkText(target) {
  const [file, anchor] = target.split('#');
  return (anchor && headingTitle(file, anchor)) || (anchor ? `${posix.basename(file)}#${anchor}` : posix.basename(file));
}

function markdownLink(target, fromFile) {
  const [file, anchor] = target.split('#');
  let rel = posix.relative(posix.dirname(fromFile), file) || posix.basename(file);
  if (rel === posix.basename(fromFile) && file === fromFile) rel = '';
  return `[${linkText(target)}](${rel}${anchor ? `#${anchor}` : ''})`;
}

/**
 * The file's new text, what changed, and what could not be mapped. Citations inside a
 * Markdown heading are removed (a link in a heading would change its anchor anyway).
 */
export function rewrite(text, file, map, refine = {}) {
  const found = [];
  const unmapped = [];
  const md = isMarkdown(file);
  const out = text.replace(CITATION, (match, _c, _s, _i, project, offset, whole, groups) => {
    const kind = groups.contract ? 'contract' : groups.spec ? 'spec' : 'issue';
    if (groups.project) return match; // another project's tracker: its own reference, kept
    const keys = keysOf(kind, match);
    const targets = [];
    const chosen = [];
    const lineStart = whole.lastIndexOf('\n', offset - 1) + 1;
    const lineEnd = whole.indexOf('\n', offset + match.length);
    const line = whole.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
    for (const key of keys) {
      if (!(key in map)) { unmapped.push(key); return match; }
      if (map[key] === null) return match;
      const rule = (refine[key] ?? []).find(([pattern]) => new RegExp(pattern, 'i').test(line));
      const target = rule ? rule[1] : map[key];
      chosen.push(`${key} → ${target}`);
      if (!targets.includes(target)) targets.push(target);
    }
    found.push(...chosen);
    if (md && /^#{1,6}\s/.test(whole.slice(lineStart, offset + 1))) return '\u0000';
    if (!md) return targets.join(', ');
    return targets.map((t) => markdownLink(t, file)).join(', ');
  });
  // Headings that held a citation: drop the marker and the punctuation it leaves.
  const renames = [];
  const lines = out.split('\n').map((line, i) => {
    if (!line.includes('\u0000')) return line;
    const fixed = line
      .replace(/\s*,\s*\u0000/g, '').replace(/\u0000\s*,\s*/g, '').replace(/\s*\(\s*\u0000\s*\)/g, '')
      .replace(/\u0000/g, '').replace(/\(\s*\)/g, '').replace(/\s+$/, '');
    const before = text.split('\n')[i];
    const oldTitle = /^#{1,6}\s+(.*)$/.exec(before)?.[1];
    const newTitle = /^#{1,6}\s+(.*)$/.exec(fixed)?.[1];
    if (oldTitle && newTitle && slug(oldTitle) !== slug(newTitle)) renames.push([slug(oldTitle), slug(newTitle)]);
    return fixed;
  });
  // Two citations side by side that now lead to one place ("spec 4.6, CONTRACT §6") say it once.
  const twice = md ? /(\[[^\]\n]*\]\([^)\s]*\))(?:(?:,| and) \1)+/g : /(\b[\w./-]+\.md(?:#[\w-]+)?)(?:(?:,| and) \1)+(?![\w#-])/g;
  return { text: lines.join('\n').replace(twice, '$1'), found, unmapped, renames };
}

/** Links to a renamed heading's old anchor, in any file: `behaviour.md#https-contract-8` → `#https`. */
export function moveAnchors(text, file, renamesByFile) {
  let out = text;
  for (const [target, renames] of renamesByFile) {
    const base = posix.basename(target).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (const [from, to] of renames) {
      out = out.replace(new RegExp(`(${base})#${from}(?![\\w-])`, 'g'), `$1#${to}`);
      if (target === file) out = out.replace(new RegExp(`\\]\\(#${from}\\)`, 'g'), `](#${to})`);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// The tree

function listFiles(paths) {
  const all = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0').filter(Boolean);
  const skip = (f) => f.split('/').includes('node_modules') || resolve(ROOT, f) === SELF || resolve(ROOT, f) === MAP_FILE;
  const wanted = paths.map((p) => relative(ROOT, resolve(p)).split(sep).join('/'));
  return all.filter((f) => !skip(f) && (wanted.length === 0 ||
    wanted.some((w) => w === '' || f === w || f.startsWith(`${w}/`))));
}

function readText(file) {
  const abs = join(ROOT, file);
  if (!existsSync(abs) || !statSync(abs).isFile() || statSync(abs).size > 4 * 1024 * 1024) return undefined;
  const buf = readFileSync(abs);
  if (buf.includes(0)) return undefined; // binary
  return buf.toString('utf8');
}

/** The changed lines, `- old` and `+ new`, by a longest-common-subsequence alignment of the stretch that differs. */
export function lineDiff(a, b) {
  let s = 0;
  while (s < a.length && s < b.length && a[s] === b[s]) s++;
  let ea = a.length;
  let eb = b.length;
  while (ea > s && eb > s && a[ea - 1] === b[eb - 1]) { ea--; eb--; }
  const x = a.slice(s, ea);
  const y = b.slice(s, eb);
  // lcs[i][j]: the longest common subsequence of x[i..] and y[j..]
  const lcs = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) { i++; j++; }
    else if (i < x.length && (j === y.length || lcs[i + 1][j] >= lcs[i][j + 1])) out.push(`- ${x[i++]}`);
    else out.push(`+ ${y[j++]}`);
  }
  return out;
}

/** Examples of every form, rewritten with a small map of their own (not the repository's). */
function selfTest() {
  const map = {
    'CONTRACT §3': 'docs/api.md#authentication', 'CONTRACT §4': 'docs/api.md#device-status',
    'CONTRACT §5': 'docs/api.md#audio-recording', 'CONTRACT §8': 'docs/api.md#https', 'CONTRACT §10': 'docs/api.md#metrics', 'CONTRACT §11': 'docs/api.md#more-api',
    'spec 4.6': 'docs/api.md#download', 'spec §7': 'docs/api.md#errors', 'CONTRACT §6': 'docs/api.md#files',
    'issue 22 item 3': 'docs/api.md#interactive-description', 'issue 24': 'BENCHMARKS.md', 'issue 41994': null,
  };
  const refine = { 'CONTRACT §11': [['events', 'docs/api.md#events']], 'CONTRACT §6': [['download', 'docs/api.md#download']] };
  const cases = [
    ['src/a.ts', '// HTTPS on one port (CONTRACT §8).', '// HTTPS on one port (docs/api.md#https).'],
    ['src/a.ts', '// records as CONTRACT §4, §5, §8 and §11 fix them',
      '// records as docs/api.md#device-status, docs/api.md#audio-recording, docs/api.md#https, docs/api.md#more-api fix them'],
    ['src/a.ts', '// as CONTRACT §3-§5 fix', '// as docs/api.md#authentication, docs/api.md#device-status, docs/api.md#audio-recording fix'],
    ['src/a.ts', '// GET /api/v1/events (CONTRACT §11): SSE', '// GET /api/v1/events (docs/api.md#events): SSE'],
    ['src/a.ts', '/** The download headers (spec 4.6, CONTRACT §6). */', '/** The download headers (docs/api.md#download). */'],
    ['src/a.ts', '// a live agent (issue 22,\n// item 3). And', '// a live agent (docs/api.md#interactive-description). And'],
    ['src/a.ts', "// issue 24's 300 ms budget", "// BENCHMARKS.md's 300 ms budget"],
    ['x.service', '# nogroup inside (systemd issue #41994), but', '# nogroup inside (systemd issue #41994), but'],
    ['src/a.ts', '// CONTRACT §10, 200 random paths', '// docs/api.md#metrics, 200 random paths'],
    ['docs/x.md', 'by role (CONTRACT\n§8), as a reader', 'by role ([HTTPS](api.md#https)), as a reader'],
    ['README.md', 'see (spec §7).', 'see ([Errors](docs/api.md#errors)).'],
    ['docs/x.md', '## HTTPS (CONTRACT §8)\n\ntext', '## HTTPS\n\ntext'],
    ['docs/x.md', '## Events (`GET /api/v1/events`, CONTRACT §11)', '## Events (`GET /api/v1/events`)'],
  ];
  let failed = 0;
  for (const [file, input, want] of cases) {
    const got = rewrite(input, file, map, refine);
    if (got.text !== want) {
      failed++;
      process.stdout.write(`FAIL ${file}: ${JSON.stringify(input)}\n  want ${JSON.stringify(want)}\n  got  ${JSON.stringify(got.text)}\n`);
    }
  }
  const left = rewrite('// CONTRACT §99', 'src/a.ts', map, refine);
  if (left.unmapped[0] !== 'CONTRACT §99' || left.text !== '// CONTRACT §99') { failed++; process.stdout.write('FAIL an unmapped form is reported and kept\n'); }
  const moved = moveAnchors('[x](docs/x.md#https-contract-8) [y](#https-contract-8)', 'docs/x.md', new Map([['docs/x.md', [['https-contract-8', 'https']]]]));
  if (moved !== '[x](docs/x.md#https) [y](#https)') { failed++; process.stdout.write(`FAIL moveAnchors: ${moved}\n`); }
  process.stdout.write(failed ? `${failed} failed\n` : `${cases.length + 2} cases passed\n`);
  return failed ? 1 : 0;
}

function main(argv) {
  // A reader that stops early (| head) is not an error.
  process.stdout.on('error', (err) => { if (err.code === 'EPIPE') process.exit(0); throw err; });
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const paths = argv.filter((a) => !a.startsWith('--'));
  for (const f of flags) {
    if (!['--write', '--diff', '--check', '--help', '--self-test'].includes(f)) {
      process.stderr.write(`replace-citations: unknown option ${f}\n`);
      return 2;
    }
  }
  if (flags.has('--help')) {
    process.stdout.write(readFileSync(SELF, 'utf8').split('\n').slice(1, 20).map((l) => l.replace(/^\/\/ ?/, '')).join('\n') + '\n');
    return 0;
  }
  const map = JSON.parse(readFileSync(MAP_FILE, 'utf8'));
  const refine = map._refine ?? {};
  if (flags.has('--self-test')) return selfTest();
  for (const k of Object.keys(map)) if (k.startsWith('_')) delete map[k];
  delete refine._about;

  const files = listFiles(paths);
  const results = new Map();
  const renamesByFile = new Map();
  const perKey = new Map();
  const unmapped = new Map();
  for (const file of files) {
    const text = readText(file);
    if (text === undefined) continue;
    const r = rewrite(text, file, map, refine);
    for (const k of r.found) perKey.set(k, (perKey.get(k) ?? 0) + 1);
    for (const k of r.unmapped) unmapped.set(k, [...(unmapped.get(k) ?? []), file]);
    if (r.renames.length) renamesByFile.set(file, r.renames);
    results.set(file, { before: text, after: r.text, count: r.found.length });
  }
  // Headings renamed anywhere: move links to their old anchors, in every file.
  if (renamesByFile.size) {
    for (const [file, r] of results) r.after = moveAnchors(r.after, file, renamesByFile);
  }

  const changed = [...results].filter(([, r]) => r.after !== r.before);
  const total = [...perKey.values()].reduce((a, b) => a + b, 0);
  if (flags.has('--check')) {
    if (total === 0 && unmapped.size === 0) return 0;
    process.stderr.write(`replace-citations: ${total + [...unmapped.values()].flat().length} citation(s) of documents outside the repository remain:\n`);
    for (const [file] of changed) process.stderr.write(`  ${file}\n`);
    for (const [k, fs] of unmapped) process.stderr.write(`  ${k} (no entry in docs/citations.json): ${[...new Set(fs)].join(', ')}\n`);
    process.stderr.write('Run: node docs/tools/replace-citations.mjs --write\n');
    return 1;
  }

  const mode = flags.has('--write') ? 'rewrote' : 'would rewrite';
  process.stdout.write(`${mode} ${total} citation(s) in ${changed.length} file(s)\n`);
  for (const [file, r] of changed) {
    process.stdout.write(`  ${file}: ${r.count}\n`);
    if (flags.has('--diff')) for (const line of lineDiff(r.before.split('\n'), r.after.split('\n'))) process.stdout.write(`    ${line}\n`);
    if (flags.has('--write')) writeFileSync(join(ROOT, file), r.after);
  }
  process.stdout.write('by form:\n');
  for (const [k, n] of [...perKey].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))) process.stdout.write(`  ${n}\t${k}\n`);
  for (const [file, renames] of renamesByFile) {
    for (const [from, to] of renames) process.stdout.write(`heading anchor moved in ${file}: #${from} → #${to}\n`);
  }
  if (unmapped.size) {
    process.stdout.write('no entry in docs/citations.json (left as they are):\n');
    for (const [k, fs] of unmapped) process.stdout.write(`  ${k}: ${[...new Set(fs)].join(', ')}\n`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === SELF) process.exitCode = main(process.argv.slice(2));
