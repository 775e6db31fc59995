// The device's name in MQTT topics and the client id. Contract section 18's `deviceId` key
// belongs to the clock work; until it lands this is its default (the short hostname, every
// character outside [A-Za-z0-9_-] replaced by `-`, cut to 64), in this one function.
import { hostname } from 'node:os';

export function deviceIdOf(_config: unknown): string {
  const short = hostname().split('.')[0] || 'device';
  return short.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 64);
}
