// Config key `mqtt` (docs/mqtt.md): parsed and checked like every other key (names the key,
// exit 78, a reload refused). Only the parser lives here; the link itself loads when configured.
import { readFileSync } from 'node:fs';
import { SCOPES, type Scope } from '../auth/scopes.ts';
import { ConfigError } from '../config/error.ts';
import { int, isObject, knownKeys, type Raw } from '../config/fields.ts';
import { errnoName } from '../util/errno.ts';
import { resolveFrom } from '../util/paths.ts';

export interface MqttConfig {
  /** mqtt://host:port or mqtts://host:port, without credentials. */
  url: string;
  /** 5, or 4 (MQTT 3.1.1). */
  protocolVersion: 4 | 5;
  username: string | null;
  /** The broker password's file (text trimmed); the password itself is never in the config. */
  passwordFile: string | null;
  caFile: string | null;
  certFile: string | null;
  keyFile: string | null;
  topicPrefix: string;
  keepaliveSeconds: number;
  stateIntervalSeconds: number;
  commandScopes: Scope[];
  homeAssistant: { discoveryPrefix: string } | null;
}

const KEYS = new Set([
  'url',
  'protocolVersion',
  'username',
  'passwordFile',
  'caFile',
  'certFile',
  'keyFile',
  'topicPrefix',
  'keepaliveSeconds',
  'stateIntervalSeconds',
  'commandScopes',
  'homeAssistant',
]);

/** Topic levels of [A-Za-z0-9_-] (no `.`: some brokers refuse it), separated by `/`. */
export const TOPIC_LEVELS = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

const fail = (key: string, text: string): never => {
  throw new ConfigError(`mqtt.${key}: ${text}`);
};

function optionalString(raw: Raw, key: string): string | null {
  const v = raw[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.length === 0 || v.includes('\0')) return fail(key, 'must be a non-empty string or null');
  return v;
}

function parseUrl(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) return fail('url', 'is required: mqtt://host:1883 or mqtts://host:8883');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('url', `not a URL: ${JSON.stringify(value)}`);
  }
  // A password in the config would be read by `config show`, backups and support bundles.
  if (url.username !== '' || url.password !== '')
    return fail('url', 'credentials in the URL are refused: use mqtt.username and mqtt.passwordFile');
  if (url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:')
    return fail('url', `must start with mqtt:// or mqtts://, got ${JSON.stringify(value)}`);
  if (url.hostname === '') return fail('url', 'has no host');
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '')
    return fail('url', 'must be only scheme, host and port');
  return `${url.protocol}//${url.host}`;
}

function parseScopes(value: unknown): Scope[] {
  if (value === undefined) return ['status'];
  if (!Array.isArray(value)) return fail('commandScopes', 'must be an array of scopes');
  for (const s of value) {
    if (!(SCOPES as readonly unknown[]).includes(s))
      return fail('commandScopes', `unknown scope ${JSON.stringify(s)} (one of ${SCOPES.join(', ')})`);
  }
  return SCOPES.filter((s) => value.includes(s));
}

function parseHomeAssistant(value: unknown): MqttConfig['homeAssistant'] {
  if (value === null) return null;
  if (value === undefined) return { discoveryPrefix: 'homeassistant' };
  if (!isObject(value)) return fail('homeAssistant', 'must be an object or null');
  knownKeys(value, new Set(['discoveryPrefix']), 'mqtt.homeAssistant');
  const prefix = value.discoveryPrefix ?? 'homeassistant';
  if (typeof prefix !== 'string' || !TOPIC_LEVELS.test(prefix))
    return fail('homeAssistant.discoveryPrefix', 'must be topic levels of A-Z a-z 0-9 _ - separated by /');
  return { discoveryPrefix: prefix };
}

/** `mqtt`: null or absent is off. Relative file paths resolve against `baseForPaths`. */
export function parseMqtt(value: unknown, baseForPaths: string): MqttConfig | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw new ConfigError('mqtt: must be an object or null');
  knownKeys(value, KEYS, 'mqtt');
  const url = parseUrl(value.url);
  const version = value.protocolVersion ?? 5;
  if (version !== 5 && version !== 4) fail('protocolVersion', `must be 5 or 4 (MQTT 3.1.1), got ${JSON.stringify(version)}`);
  const file = (key: string) => {
    const v = optionalString(value, key);
    return v === null ? null : resolveFrom(baseForPaths, v);
  };
  const caFile = file('caFile');
  const certFile = file('certFile');
  const keyFile = file('keyFile');
  if ((certFile === null) !== (keyFile === null)) fail(certFile ? 'keyFile' : 'certFile', 'mqtt.certFile and mqtt.keyFile go together');
  if (!url.startsWith('mqtts:')) {
    for (const [key, v] of [
      ['caFile', caFile],
      ['certFile', certFile],
    ] as const)
      if (v) fail(key, 'needs an mqtts:// url');
  }
  const passwordFile = file('passwordFile');
  const username = optionalString(value, 'username');
  if (passwordFile && username === null) fail('passwordFile', 'needs mqtt.username');
  const topicPrefix = value.topicPrefix ?? 'device-agent';
  if (typeof topicPrefix !== 'string' || !TOPIC_LEVELS.test(topicPrefix))
    fail('topicPrefix', 'must be topic levels of A-Z a-z 0-9 _ - separated by /');
  return {
    url,
    protocolVersion: version as 4 | 5,
    username,
    passwordFile,
    caFile,
    certFile,
    keyFile,
    topicPrefix: topicPrefix as string,
    keepaliveSeconds: int(value, 'keepaliveSeconds', 'mqtt.keepaliveSeconds', 30, 5, 600),
    stateIntervalSeconds: int(value, 'stateIntervalSeconds', 'mqtt.stateIntervalSeconds', 30, 5, 3600),
    commandScopes: parseScopes(value.commandScopes),
    homeAssistant: parseHomeAssistant(value.homeAssistant),
  };
}

/** What the link reads from files named in the config (at start and on each SIGHUP); never logged. */
export interface MqttSecrets {
  password: Buffer | undefined;
  ca: Buffer | undefined;
  cert: Buffer | undefined;
  key: Buffer | undefined;
}

/** Reads the files; a problem is a ConfigError naming the key (exit 78, or the reload refused). */
export function readMqttSecrets(config: MqttConfig): MqttSecrets {
  const read = (key: string, path: string | null): Buffer | undefined => {
    if (path === null) return undefined;
    try {
      return readFileSync(path);
    } catch (err) {
      return fail(key, `cannot read ${path}: ${errnoName(err)}`);
    }
  };
  const password = read('passwordFile', config.passwordFile);
  return {
    password: password && Buffer.from(password.toString('utf8').trim(), 'utf8'),
    ca: read('caFile', config.caFile),
    cert: read('certFile', config.certFile),
    key: read('keyFile', config.keyFile),
  };
}
