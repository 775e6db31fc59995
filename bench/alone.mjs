// A bench file run by itself (`node bench/mqtt.mjs --smoke --rounds 1`) rather than from
// bench/run.mjs: whether it is, its options, the built executable, a temp directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The executable `npm run build` makes. */
export const BIN = join(ROOT, 'dist/device-agent');

/** Whether the module of `metaUrl` is the one node was asked to run. */
export const ranAlone = (metaUrl) => process.argv[1] === fileURLToPath(metaUrl);

/** `--name VALUE` as given, or `dflt` when the option is absent. */
export function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : process.argv[i + 1];
}

/** `--name N` as a number, or `dflt` when the option is absent. */
export function numberArg(name, dflt) {
  const value = arg(name, undefined);
  return value === undefined ? dflt : Number(value);
}

/** Whether `--name` is given. */
export const flag = (name) => process.argv.includes(`--${name}`);

/** Runs `body` in a fresh temp directory, removed afterwards. */
export async function inTempDir(prefix, body) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
