// The config file: defaults, loading, validation. Every problem names its key; callers exit 78.
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { isWithin, joinName, resolveFrom } from '../util/paths.ts';
import { type OutboxConfig, parseOutbox } from '../outbox/config.ts';
import { parseMqtt, type MqttConfig } from '../mqtt/config.ts';
import { ConfigError } from './error.ts';
import { int, isObject, knownKeys, type Raw } from './fields.ts';

export interface AudioConfig {
  recorder: 'sox' | 'arecord';
  device: string;
  maxDurationSeconds: number;
  /** Which recordings are kept (docs/behaviour.md, "Recordings and the disk"); null: no limit. */
  retention: RetentionConfig;
  /** A start needs this much free space where recordings go; a recording ends below half of it. */
  minFreeBytes: number;
}

export interface RetentionConfig {
  maxCount: number | null;
  maxBytes: number | null;
  maxAgeDays: number | null;
}

export interface MetricsConfig {
  /** Counting and GET /metrics; false serves no /metrics and counts nothing (the bench's "off"). */
  enabled: boolean;
  /** The static scrape credential (docs/api.md#metrics), created 0600 when absent. */
  tokenFile: string;
}

export interface Config {
  host: string;
  port: number;
  baseDir: string;
  uploadDir: string;
  recordingsDir: string;
  usersFile: string;
  /** API tokens (hashes only), mode 0600; default tokens.json beside usersFile. */
  tokensFile: string;
  /** The recording schedule (docs/schedule.md), mode 0600; default schedule.json beside usersFile; absent: none. */
  scheduleFile: string;
  jwtSecretFile: string;
  tokenTtlSeconds: number;
  maxFileBytes: number;
  audio: AudioConfig;
  metrics: MetricsConfig;
  /** HTTPS on the same port (docs/api.md#https); null: plain HTTP only. */
  tls: TlsConfig | null;
  audit: AuditConfig;
  /** Shipping files to central storage (docs/outbox.md); null: off. */
  outbox: OutboxConfig | null;
  /** The MQTT link (docs/mqtt.md); null: off. */
  mqtt: MqttConfig | null;
  /** The device's name in object keys, MQTT topics and client ids (docs/behaviour.md#the-device-id). */
  deviceId: string;
  clock: ClockConfig;
}

export interface ClockConfig {
  /** When set, this file's existence alone says the clock is synchronized (docs/behaviour.md#the-clock). */
  syncedFile: string | null;
}

export interface AuditConfig {
  /** A file the audit events are also appended to (JSON lines, 0600); null: none. */
  file: string | null;
}

export interface TlsConfig {
  certFile: string;
  keyFile: string;
  /** Create a self-signed pair when both files are missing. */
  selfSigned: boolean;
  /** PEM file of the CAs a client certificate must chain to (mutual TLS); null: none asked for. */
  clientCaFile: string | null;
  /** A plain-HTTP request: served, or answered 308 to https (always 308 with clientCaFile). */
  plainHttp: 'allow' | 'redirect';
}

export { ConfigError, EX_CONFIG } from './error.ts';

export const DEFAULT_CONFIG_PATH = '/etc/device-agent/config.json';

const TOP_KEYS = new Set([
  'host',
  'port',
  'baseDir',
  'uploadDir',
  'recordingsDir',
  'usersFile',
  'tokensFile',
  'scheduleFile',
  'audit',
  'jwtSecretFile',
  'tokenTtlSeconds',
  'maxFileBytes',
  'audio',
  'tls',
  'metrics',
  'outbox',
  'mqtt',
  'deviceId',
  'clock',
]);
const AUDIO_KEYS = new Set(['recorder', 'device', 'maxDurationSeconds', 'retention', 'minFreeBytes']);
const RETENTION_KEYS = new Set(['maxCount', 'maxBytes', 'maxAgeDays']);
const METRICS_KEYS = new Set(['enabled', 'tokenFile']);

function str(raw: Raw, key: string, name: string, fallback: string): string {
  const v = raw[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || v.length === 0) throw new ConfigError(`${name}: must be a non-empty string`);
  if (v.includes('\0')) throw new ConfigError(`${name}: must not contain NUL`);
  return v;
}

/** `metrics`: the token file defaults to metrics.token beside the JWT secret (docs/api.md#metrics). */
function parseMetrics(value: unknown, baseForPaths: string, jwtSecretFile: string): MetricsConfig {
  const raw = value === undefined ? {} : value;
  if (!isObject(raw)) throw new ConfigError('metrics: must be an object');
  knownKeys(raw, METRICS_KEYS, 'metrics');
  if (raw.enabled !== undefined && typeof raw.enabled !== 'boolean') throw new ConfigError('metrics.enabled: must be true or false');
  const fallback = joinName(dirname(jwtSecretFile), 'metrics.token');
  return {
    enabled: raw.enabled ?? true,
    tokenFile: resolveFrom(baseForPaths, str(raw, 'tokenFile', 'metrics.tokenFile', fallback)),
  };
}

/**
 * Validates a parsed config object. Relative paths resolve against `baseForPaths`
 * (the directory holding the config file).
 */
export function parseConfig(raw: unknown, baseForPaths: string): Config {
  if (!isObject(raw)) throw new ConfigError('config: must be a JSON object');
  knownKeys(raw, TOP_KEYS, '');
  const path = (key: string, fallback: string) => resolveFrom(baseForPaths, str(raw, key, key, fallback));

  const host = str(raw, 'host', 'host', '0.0.0.0');
  const port = int(raw, 'port', 'port', 5050, 0, 65535);
  const baseDir = path('baseDir', '/var/lib/device-agent/files');
  const uploadDir = path('uploadDir', baseDir);
  const recordingsDir = path('recordingsDir', joinName(baseDir, 'recordings'));
  if (!isWithin(baseDir, recordingsDir)) {
    throw new ConfigError(`recordingsDir: must lie inside baseDir (${baseDir}), got ${recordingsDir}`);
  }
  const usersFile = path('usersFile', '/var/lib/device-agent/users.json');
  const tokensFile = path('tokensFile', joinName(dirname(usersFile), 'tokens.json'));
  const scheduleFile = path('scheduleFile', joinName(dirname(usersFile), 'schedule.json'));
  const jwtSecretFile = path('jwtSecretFile', '/var/lib/device-agent/jwt.secret');
  const tokenTtlSeconds = int(raw, 'tokenTtlSeconds', 'tokenTtlSeconds', 3600, 1, 31 * 24 * 3600);
  const maxFileBytes = int(raw, 'maxFileBytes', 'maxFileBytes', 52428800, 1, Number.MAX_SAFE_INTEGER);

  const rawAudio = raw.audio === undefined ? {} : raw.audio;
  if (!isObject(rawAudio)) throw new ConfigError('audio: must be an object');
  knownKeys(rawAudio, AUDIO_KEYS, 'audio');
  const recorder = str(rawAudio, 'recorder', 'audio.recorder', 'sox');
  if (recorder !== 'sox' && recorder !== 'arecord') {
    throw new ConfigError(`audio.recorder: must be "sox" or "arecord", got ${JSON.stringify(recorder)}`);
  }
  const device = str(rawAudio, 'device', 'audio.device', 'default');
  const maxDur = rawAudio.maxDurationSeconds;
  let maxDurationSeconds = 3600;
  if (maxDur !== undefined) {
    if (typeof maxDur !== 'number' || !Number.isFinite(maxDur) || maxDur <= 0 || maxDur > 86400) {
      throw new ConfigError('audio.maxDurationSeconds: must be a number above 0 and at most 86400');
    }
    maxDurationSeconds = maxDur;
  }

  const retention = parseRetention(rawAudio.retention);
  const minFreeBytes = int(rawAudio, 'minFreeBytes', 'audio.minFreeBytes', 104857600, 0, Number.MAX_SAFE_INTEGER);

  const tls = parseTls(raw.tls, baseForPaths, jwtSecretFile);

  return {
    host,
    port,
    baseDir,
    uploadDir,
    recordingsDir,
    usersFile,
    tokensFile,
    scheduleFile,
    jwtSecretFile,
    tokenTtlSeconds,
    maxFileBytes,
    audio: { recorder, device, maxDurationSeconds, retention, minFreeBytes },
    tls,
    metrics: parseMetrics(raw.metrics, baseForPaths, jwtSecretFile),
    audit: parseAudit(raw.audit, baseForPaths),
    outbox: parseOutbox(raw.outbox, baseForPaths, baseDir, recordingsDir),
    mqtt: parseMqtt(raw.mqtt, baseForPaths),
    deviceId: parseDeviceId(raw.deviceId),
    clock: parseClock(raw.clock, baseForPaths),
  };
}

const DEVICE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The default device id: the short hostname, every character outside [A-Za-z0-9_-] made
 * `-` (no `.`: some MQTT brokers refuse it in topics), cut to 64; `device` for an empty name.
 */
export function defaultDeviceId(host: string = hostname()): string {
  const short = host.split('.')[0] ?? '';
  return short.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 64) || 'device';
}

function parseDeviceId(value: unknown): string {
  if (value === undefined) return defaultDeviceId();
  if (typeof value !== 'string' || !DEVICE_ID.test(value)) {
    throw new ConfigError('deviceId: must be 1 to 64 of the characters A-Z a-z 0-9 _ -');
  }
  return value;
}

function parseClock(value: unknown, baseForPaths: string): ClockConfig {
  if (value === undefined || value === null) return { syncedFile: null };
  if (!isObject(value)) throw new ConfigError('clock: must be an object');
  knownKeys(value, new Set(['syncedFile']), 'clock');
  if (value.syncedFile === undefined || value.syncedFile === null) return { syncedFile: null };
  return { syncedFile: resolveFrom(baseForPaths, str(value, 'syncedFile', 'clock.syncedFile', '')) };
}

/** `audio.retention`: each limit null (none) or positive; a whole object, absent or null meaning no limits. */
function parseRetention(value: unknown): RetentionConfig {
  const none: RetentionConfig = { maxCount: null, maxBytes: null, maxAgeDays: null };
  if (value === undefined || value === null) return none;
  if (!isObject(value)) throw new ConfigError('audio.retention: must be an object');
  knownKeys(value, RETENTION_KEYS, 'audio.retention');
  const limit = (key: 'maxCount' | 'maxBytes', max: number) =>
    value[key] === null ? null : int(value, key, `audio.retention.${key}`, null as unknown as number, 1, max);
  const days = value.maxAgeDays;
  if (days !== undefined && days !== null && (typeof days !== 'number' || !Number.isFinite(days) || days <= 0 || days > 36500)) {
    throw new ConfigError('audio.retention.maxAgeDays: must be a number above 0 and at most 36500, or null');
  }
  return {
    maxCount: limit('maxCount', 1_000_000) ?? null,
    maxBytes: limit('maxBytes', Number.MAX_SAFE_INTEGER) ?? null,
    maxAgeDays: days ?? null,
  };
}

function parseAudit(rawAudit: unknown, baseForPaths: string): AuditConfig {
  if (rawAudit === undefined || rawAudit === null) return { file: null };
  if (!isObject(rawAudit)) throw new ConfigError('audit: must be an object');
  knownKeys(rawAudit, new Set(['file']), 'audit');
  if (rawAudit.file === undefined || rawAudit.file === null) return { file: null };
  return { file: resolveFrom(baseForPaths, str(rawAudit, 'file', 'audit.file', '')) };
}

const TLS_KEYS = new Set(['certFile', 'keyFile', 'selfSigned', 'clientCaFile', 'plainHttp']);

/** `tls`: the pair defaults to tls/ beside the JWT secret, with the other state (docs/api.md, "HTTPS"). */
function parseTls(rawTls: unknown, baseForPaths: string, jwtSecretFile: string): TlsConfig | null {
  if (rawTls === undefined || rawTls === null) return null;
  if (!isObject(rawTls)) throw new ConfigError('tls: must be an object or null');
  knownKeys(rawTls, TLS_KEYS, 'tls');
  const dir = joinName(dirname(jwtSecretFile), 'tls');
  const certFile = resolveFrom(baseForPaths, str(rawTls, 'certFile', 'tls.certFile', joinName(dir, 'cert.pem')));
  const keyFile = resolveFrom(baseForPaths, str(rawTls, 'keyFile', 'tls.keyFile', joinName(dir, 'key.pem')));
  if (certFile === keyFile) throw new ConfigError('tls.keyFile: must not be the same file as tls.certFile');
  const selfSigned = rawTls.selfSigned ?? true;
  if (typeof selfSigned !== 'boolean') throw new ConfigError('tls.selfSigned: must be true or false');
  const clientCaFile =
    rawTls.clientCaFile === undefined || rawTls.clientCaFile === null
      ? null
      : resolveFrom(baseForPaths, str(rawTls, 'clientCaFile', 'tls.clientCaFile', ''));
  // A client certificate that plain HTTP on the same port could do without would guard nothing.
  const plainHttp = rawTls.plainHttp ?? (clientCaFile ? 'redirect' : 'allow');
  if (plainHttp !== 'allow' && plainHttp !== 'redirect') {
    throw new ConfigError(`tls.plainHttp: must be "allow" or "redirect", got ${JSON.stringify(plainHttp)}`);
  }
  if (clientCaFile && plainHttp === 'allow') {
    throw new ConfigError('tls.plainHttp: "allow" would let plain HTTP bypass tls.clientCaFile; use "redirect"');
  }
  return { certFile, keyFile, selfSigned, clientCaFile, plainHttp };
}

/**
 * The embedded development default used by `npm start`: loopback only, state under ./var,
 * HTTPS on beside HTTP (a self-signed pair in var/tls), as on a device.
 */
export function devConfig(cwd: string): Config {
  return parseConfig(
    {
      host: '127.0.0.1',
      port: 5050,
      baseDir: 'var/files',
      usersFile: 'var/users.json',
      jwtSecretFile: 'var/jwt.secret',
      audio: { device: 'default' },
      tls: { certFile: 'var/tls/cert.pem', keyFile: 'var/tls/key.pem' },
    },
    cwd,
  );
}
