// The config as files: the main file, then `<its dir>/config.d/*.json` drop-ins merged over
// it in byte order of their names (docs/api.md#systemd). A problem names the file it comes from.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { errnoName } from '../util/errno.ts';
import { ConfigError, parseConfig, type Config } from './config.ts';
import { joinName, resolveFrom } from '../util/paths.ts';

type Raw = Record<string, unknown>;

export interface ConfigFiles {
  /** The merged object, before validation and defaults. */
  raw: Raw;
  /** The files read, main file first. */
  files: string[];
  /** Which file set each key, by dotted name (`port`, `audio.device`). */
  origin: Map<string, string>;
  /** The main file's directory: relative paths resolve against it, drop-ins' too. */
  dir: string;
}

const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

function readJson(file: string): Raw {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`config: cannot read ${file}: ${errnoName(err)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config: ${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(raw)) throw new ConfigError(`config: ${file} must hold a JSON object`);
  return raw;
}

/** Byte order of UTF-8 names, as `ls` sorts them in the C locale (not UTF-16 code units). */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The drop-ins of `dir`/config.d: regular `*.json` files (links followed), not hidden ones. */
export function dropInFiles(dir: string): string[] {
  const d = joinName(dir, 'config.d');
  let names: string[];
  try {
    names = readdirSync(d);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new ConfigError(`config: cannot read ${d}: ${errnoName(err)}`);
  }
  return names
    .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
    .sort(byBytes)
    .map((n) => joinName(d, n))
    .filter((f) => {
      try {
        return statSync(f).isFile();
      } catch (err) {
        throw new ConfigError(`config: cannot read ${f}: ${errnoName(err)}`);
      }
    });
}

/** Merges `over` into `into`: nested objects key by key, anything else replaces. */
function merge(into: Raw, over: Raw, file: string, origin: Map<string, string>, prefix = ''): void {
  for (const [key, value] of Object.entries(over)) {
    const name = prefix + key;
    const had = into[key];
    if (isObject(value) && isObject(had)) {
      merge(had, value, file, origin, `${name}.`);
    } else {
      into[key] = isObject(value) ? structuredClone(value) : value;
      origin.set(name, file);
    }
  }
}

/** Reads the main file and its drop-ins, merged; nothing validated yet. */
export function readConfigFiles(file: string): ConfigFiles {
  const main = resolveFrom(process.cwd(), file);
  const dir = dirname(main);
  const origin = new Map<string, string>();
  const raw: Raw = {};
  const files = [main, ...dropInFiles(dir)];
  for (const f of files) merge(raw, readJson(f), f, origin);
  return { raw, files, origin, dir };
}

/** The file that set the key a ConfigError is about (its message starts `key: `). */
function fileOf(err: ConfigError, cf: ConfigFiles): string {
  const key = /^([\w.]+): /.exec(err.message)?.[1];
  for (let k = key; k; k = k.includes('.') ? k.slice(0, k.lastIndexOf('.')) : undefined) {
    const f = cf.origin.get(k);
    if (f) return f;
  }
  return cf.files[0]!;
}

/** Runs `fn` on the merged files; a ConfigError about a key gets the file that set it in front. */
export function inFiles<T>(cf: ConfigFiles, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`${fileOf(err, cf)}: ${err.message}`);
    throw err;
  }
}

/** Validates merged files; a bad key's error starts with the file that set it. */
export function parseConfigFiles(cf: ConfigFiles): Config {
  return inFiles(cf, () => parseConfig(cf.raw, cf.dir));
}

/** Reads and validates a config file with its drop-ins. */
export function loadConfig(file: string): Config {
  return parseConfigFiles(readConfigFiles(file));
}
