// `outbox` in the config file (docs/outbox.md): validated with the rest at start and on reload,
// each problem naming its key (exit 78 / reload refused). Small and pure: the outbox itself
// (src/outbox/service.ts) loads only when this says it is on.
// No node:fs or node:path of its own: each module's require() at start is a call through
// Node's module tracing channel, and a few more got its hasSubscribers Maglev-compiled in an
// idle agent (test/unit-bundle.test.ts).
import { ConfigError } from '../config/error.ts';
import { isObject, knownKeys, type Raw } from '../config/fields.ts';
import { readTrimmed } from '../util/atomic.ts';
import { errnoName } from '../util/errno.ts';
import { isWithin, resolveFrom } from '../util/paths.ts';

export interface S3Target {
  type: 's3';
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKeyFile: string;
  pathStyle: boolean;
  caFile: string | null;
}

export interface UrlTarget {
  type: 'presigned' | 'http';
  url: string;
  tokenFile: string;
  caFile: string | null;
}

export type OutboxTarget = S3Target | UrlTarget;

export interface OutboxConfig {
  target: OutboxTarget;
  /** Absolute directories under baseDir whose files ship. */
  paths: string[];
  deleteAfterUpload: boolean;
  maxBytesPerSecond: number | null;
  maxBackoffSeconds: number;
}

const OUTBOX_KEYS = new Set(['target', 'paths', 'deleteAfterUpload', 'maxBytesPerSecond', 'maxBackoffSeconds']);
const TARGET_KEYS: Record<string, Set<string>> = {
  s3: new Set(['type', 'endpoint', 'region', 'bucket', 'prefix', 'accessKeyId', 'secretAccessKeyFile', 'pathStyle', 'caFile']),
  presigned: new Set(['type', 'url', 'tokenFile', 'caFile']),
  http: new Set(['type', 'url', 'tokenFile', 'caFile']),
};

function text(raw: Raw, key: string, name: string, fallback?: string): string {
  const v = raw[key];
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'string' || v.length === 0) throw new ConfigError(`${name}: must be a non-empty string`);
  if (v.includes('\0')) throw new ConfigError(`${name}: must not contain NUL`);
  return v;
}

function httpUrl(raw: Raw, key: string, name: string): string {
  const v = text(raw, key, name);
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(`${name}: must be an http or https URL, got ${JSON.stringify(v)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${name}: must be an http or https URL`);
  if (u.username || u.password) throw new ConfigError(`${name}: must not hold a user or password (the secret goes in a file)`);
  return v;
}

/** A secret file's text, trimmed; a problem names the key, never the content. */
export function readSecretFile(file: string, key: string): string {
  let value: string;
  try {
    value = readTrimmed(file);
  } catch (err) {
    throw new ConfigError(`${key}: cannot read ${file}: ${errnoName(err)}`);
  }
  if (value.length === 0) throw new ConfigError(`${key}: ${file} is empty`);
  return value;
}

function parseTarget(value: unknown, baseForPaths: string): OutboxTarget {
  if (!isObject(value)) throw new ConfigError('outbox.target: must be an object');
  const type = value.type;
  if (typeof type !== 'string' || !TARGET_KEYS[type]) {
    throw new ConfigError(`outbox.target.type: must be "s3", "presigned" or "http", got ${JSON.stringify(type)}`);
  }
  for (const key of Object.keys(value)) {
    if (!TARGET_KEYS[type]!.has(key)) throw new ConfigError(`outbox.target.${key}: unknown key for type "${type}"`);
  }
  const file = (key: string) => resolveFrom(baseForPaths, text(value, key, `outbox.target.${key}`));
  const caFile = value.caFile === undefined || value.caFile === null ? null : file('caFile');
  if (type !== 's3')
    return { type: type as UrlTarget['type'], url: httpUrl(value, 'url', 'outbox.target.url'), tokenFile: file('tokenFile'), caFile };
  const pathStyle = value.pathStyle ?? true;
  if (typeof pathStyle !== 'boolean') throw new ConfigError('outbox.target.pathStyle: must be true or false');
  const bucket = text(value, 'bucket', 'outbox.target.bucket');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError(`outbox.target.bucket: not a valid bucket name: ${JSON.stringify(bucket)}`);
  const prefix = value.prefix === undefined ? '{deviceId}/' : value.prefix;
  if (typeof prefix !== 'string' || prefix.startsWith('/'))
    throw new ConfigError('outbox.target.prefix: must be a string not starting with "/"');
  return {
    type: 's3',
    endpoint: httpUrl(value, 'endpoint', 'outbox.target.endpoint'),
    region: text(value, 'region', 'outbox.target.region', 'us-east-1'),
    bucket,
    prefix,
    accessKeyId: text(value, 'accessKeyId', 'outbox.target.accessKeyId'),
    secretAccessKeyFile: file('secretAccessKeyFile'),
    pathStyle,
    caFile,
  };
}

/** `outbox`: null or absent is off. `paths` are relative to baseDir and must stay inside it. */
export function parseOutbox(value: unknown, baseForPaths: string, baseDir: string, recordingsDir: string): OutboxConfig | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw new ConfigError('outbox: must be an object or null');
  knownKeys(value, OUTBOX_KEYS, 'outbox');
  if (value.target === undefined) throw new ConfigError('outbox.target: required');
  const target = parseTarget(value.target, baseForPaths);
  const rawPaths = value.paths ?? [recordingsDir === baseDir ? '.' : recordingsDir.slice(baseDir.length + 1)];
  if (!Array.isArray(rawPaths) || rawPaths.length === 0) throw new ConfigError('outbox.paths: must be a non-empty array of directories');
  const paths = rawPaths.map((p, i) => {
    if (typeof p !== 'string' || p.includes('\0')) throw new ConfigError(`outbox.paths[${i}]: must be a string`);
    if (p.startsWith('/')) throw new ConfigError(`outbox.paths[${i}]: must be relative to baseDir, got ${p}`);
    const abs = resolveFrom(baseDir, p || '.');
    if (!isWithin(baseDir, abs)) throw new ConfigError(`outbox.paths[${i}]: must lie inside baseDir (${baseDir}), got ${p}`);
    return abs;
  });
  const deleteAfterUpload = value.deleteAfterUpload ?? false;
  if (typeof deleteAfterUpload !== 'boolean') throw new ConfigError('outbox.deleteAfterUpload: must be true or false');
  const rate = value.maxBytesPerSecond ?? null;
  if (rate !== null && (typeof rate !== 'number' || !Number.isInteger(rate) || rate < 1024)) {
    throw new ConfigError('outbox.maxBytesPerSecond: must be an integer of at least 1024, or null');
  }
  const backoff = value.maxBackoffSeconds ?? 300;
  if (typeof backoff !== 'number' || !Number.isFinite(backoff) || backoff < 2 || backoff > 86400) {
    throw new ConfigError('outbox.maxBackoffSeconds: must be a number from 2 to 86400');
  }
  const config: OutboxConfig = { target, paths, deleteAfterUpload, maxBytesPerSecond: rate, maxBackoffSeconds: backoff };
  outboxSecret(config); // a missing or empty secret file is a config error now, not at the first upload
  return config;
}

/** The target's secret (S3 secret key or bearer token), read afresh: a reload picks up a new one. */
export function outboxSecret(config: OutboxConfig): string {
  const t = config.target;
  return t.type === 's3'
    ? readSecretFile(t.secretAccessKeyFile, 'outbox.target.secretAccessKeyFile')
    : readSecretFile(t.tokenFile, 'outbox.target.tokenFile');
}
