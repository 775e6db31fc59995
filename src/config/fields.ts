// Checks of one config field, shared by the config parser and the parsers of a feature's
// own key (src/mqtt/config.ts, src/outbox/config.ts): each problem a ConfigError naming the key.
import { ConfigError } from './error.ts';

export type Raw = Record<string, unknown>;

export function isObject(v: unknown): v is Raw {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `raw[key]`, an integer in [min, max]; `name` is the key's full name in texts; absent: `fallback`. */
export function int(raw: Raw, key: string, name: string, fallback: number, min: number, max: number): number {
  const v = raw[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new ConfigError(`${name}: must be an integer`);
  if (v < min || v > max) throw new ConfigError(`${name}: must be between ${min} and ${max}, got ${v}`);
  return v;
}

/** Every key of `raw` is one of `keys`; else `<name>.<key>: unknown key` (`name` empty: the top level). */
export function knownKeys(raw: Raw, keys: ReadonlySet<string>, name: string): void {
  for (const key of Object.keys(raw)) {
    if (!keys.has(key)) throw new ConfigError(`${name ? `${name}.` : ''}${key}: unknown key`);
  }
}
