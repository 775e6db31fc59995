// What a config reload (SIGHUP, docs/api.md#systemd) may change in a running agent. The listening
// socket and the directories are set up at start: a change of those waits for a restart.
// jwtSecretFile too: the secret is read once at start, and a new one would end every
// token at once, which is a restart's business. Everything else applies to new requests.
import type { Config } from './config.ts';

// tls too: the listener's sniffing and the certificate's files are set up at start (the
// files themselves are re-read on change and on SIGHUP: src/tls/service.ts).

/** Keys a reload keeps at their running value (with a warning when the file changed them). */
export const RESTART_KEYS = ['host', 'port', 'baseDir', 'uploadDir', 'recordingsDir', 'jwtSecretFile', 'tls'] as const;

/** A key's value as a reload compares and names it (tls is an object: by its JSON). */
const shown = (v: unknown): string => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

export interface ReloadPlan {
  /** The config to run on: the new one, with the restart keys at their running value. */
  config: Config;
  /** Restart keys the new config changes: `port 5050 -> 8080`. */
  needRestart: string[];
  /** Keys (dotted) that change now. */
  changed: string[];
}

// An object inside (audio.retention) is compared by its JSON, as tls is.
const prefixed = (name: string, o: object) =>
  Object.entries(o).map(([k, v]) => [`${name}.${k}`, typeof v === 'object' && v !== null ? shown(v) : v]);
const flat = (c: Config): Record<string, unknown> => {
  const { audio, tls, metrics, audit, clock, outbox, mqtt, ...top } = c;
  return {
    ...top,
    tls: shown(tls),
    outbox: shown(outbox),
    mqtt: shown(mqtt),
    ...Object.fromEntries([
      ...prefixed('audio', audio),
      ...prefixed('metrics', metrics),
      ...prefixed('audit', audit),
      ...prefixed('clock', clock),
    ]),
  };
};

export function planReload(running: Config, next: Config): ReloadPlan {
  const config: Config = { ...next, audio: { ...next.audio } };
  const needRestart: string[] = [];
  for (const key of RESTART_KEYS) {
    if (shown(next[key]) !== shown(running[key])) {
      needRestart.push(`${key} ${shown(running[key])} -> ${shown(next[key])}`);
      (config as unknown as Record<string, unknown>)[key] = running[key];
    }
  }
  const before = flat(running);
  const after = flat(config);
  const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
  return { config, needRestart, changed };
}
