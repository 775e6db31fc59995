// The device's name in object keys and collector paths. One function, so that it can follow
// the `deviceId` config key (docs/outbox.md) once that key exists, without touching its callers.
import { hostname } from 'node:os';
import type { Config } from '../config/config.ts';

/** The short hostname, every character outside [A-Za-z0-9_-] replaced by `-`, cut to 64. */
export function deviceIdOf(config: Config): string {
  const own = (config as unknown as { deviceId?: unknown }).deviceId;
  if (typeof own === 'string' && own.length > 0) return own;
  return (hostname().split('.')[0] || 'device').replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 64);
}
