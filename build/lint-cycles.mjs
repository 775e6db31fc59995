// npm run lint: no import cycle among the modules of the agent (src/) and of the client
// (client/src/). Layers point one way (auth never back into http, the client's download
// never back into its client); a cycle makes module order matter at load time and hides
// which layer owns what. Type-only imports count too (a type names what it depends on);
// so do inline type references (`import('./x.ts').Name`); dynamic import() is a lazy load, left out. Prints each cycle, exits 1 when there is one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const ROOTS = ['src', 'client/src'];

function files(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else if (/\.ts$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The relative modules a file imports (types too). */
function imports(file) {
  const text = readFileSync(file, 'utf8');
  const out = [];
  const re = /^\s*(import|export)\s+([^'";]*?)\s*from\s*['"](\.[^'"]+)['"]|^\s*import\s*['"](\.[^'"]+)['"]/gm;
  for (const m of text.matchAll(re)) {
    const spec = m[3] ?? m[4];
    out.push(resolve(dirname(file), spec));
  }
  // A type named inline, `import('./x.ts').Name`, is a dependency like an import statement
  // (a lazy load, `import('./x.ts').then(...)` or `await import(...)`, names no type).
  for (const m of text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)\.[A-Z]\w*/g)) out.push(resolve(dirname(file), m[1]));
  return out;
}

const graph = new Map();
for (const root of ROOTS)
  for (const f of files(join(ROOT, root)))
    graph.set(
      f,
      imports(f).filter((t) => t !== f),
    );

const cycles = new Set();
const state = new Map(); // 1: on the stack, 2: done
const stack = [];
function visit(node) {
  state.set(node, 1);
  stack.push(node);
  for (const next of graph.get(node) ?? []) {
    if (!graph.has(next)) continue;
    if (state.get(next) === 1) {
      const cycle = stack.slice(stack.indexOf(next)).map((f) => relative(ROOT, f));
      // One spelling per cycle: start at its smallest name.
      const i = cycle.indexOf([...cycle].sort()[0]);
      cycles.add([...cycle.slice(i), ...cycle.slice(0, i)].join(' -> '));
    } else if (!state.has(next)) visit(next);
  }
  stack.pop();
  state.set(node, 2);
}
for (const node of graph.keys()) if (!state.has(node)) visit(node);

for (const c of cycles) console.error(`import cycle: ${c}`);
process.exit(cycles.size ? 1 : 0);
