// Starting the service: prepare directories, secret and users, build the app, listen.
import { errnoName } from './util/errno.ts';
import { statSync } from 'node:fs';
import { posix } from 'node:path';
import { joinName } from './util/paths.ts';
import { createApp } from './app.ts';
import type { Operations } from './ops/invoke.ts';
import { guardRecordings } from './audio/disk-guard.ts';
import { Captures } from './audio/captures.ts';
import { LiveStreams } from './audio/live.ts';
import { Recorder, recordingStateFile } from './audio/recorder.ts';
import { makeRecordingsDir } from './audio/recordings-dir.ts';
import { LoginLimiter } from './auth/limiter.ts';
import { Gate, hashPassword } from './auth/passwords.ts';
import { loadSecret, SecretError } from './auth/secret.ts';
import { Tokens } from './auth/tokens.ts';
import { ApiTokenStore, TokensFileError } from './auth/api-tokens.ts';
import { auditDeleted, createAudit } from './audit/trail.ts';
import { newUser, UserStore, UsersFileError, writeUsers } from './auth/users.ts';
import { ConfigError, type Config } from './config/config.ts';
import { crypto } from './util/crypto.ts';
import { SEGMENT_TEMPS, sweepTempFiles } from './files/sweep.ts';
import { discardLiveTempFiles } from './files/tempfile.ts';
import type { Log } from './util/logger.ts';
import { serverFd, setInternalsLog } from './http/node-internals.ts';
import type { Route } from './http/types.ts';
import { listen, type RunningServer } from './http/server.ts';
import { holdTickMap, settleAfterStart } from './native/memory.ts';
import { AgentMetrics } from './metrics/agent.ts';
import { planReload, type ReloadPlan } from './config/reload.ts';
import { LISTENER_NAME, takeListener, type PassedFd, type Taken } from './systemd/listen-fds.ts';
import type { Notifier } from './systemd/notify.ts';
import { RecordingOrder } from './audio/recording-order.ts';
import { StatusSampler } from './status/sampler.ts';
import { clockSynchronized } from './util/clock.ts';
import type { TlsOptions } from 'node:tls';
import { tlsMetrics } from './tls/metrics.ts';
import { TlsService } from './tls/service.ts';
import { EventHub, eventSources } from './events/hub.ts';
import { scheduleHost } from './schedule/host.ts';
import { SCHEDULE_OFF } from './schedule/state.ts';
import { OutboxSlot } from './outbox/slot.ts';
import { readMqttSecrets, type MqttSecrets } from './mqtt/config.ts';
import type { MqttLink } from './mqtt/link.ts';
import type { Run } from './mqtt/commands.ts';

/** How long a stop waits for the last retention pass and the order record (src/audio/recording-order.ts). */
const FLUSH_LIMIT_MS = 5000;

export interface ServeOptions {
  /** Development mode: create user admin with a random password on first start. */
  firstRunAdmin: boolean;
  log: Log;
  /** Written once to stdout on first start in development mode. */
  announce: (text: string) => void;
  /** Under systemd (Type=notify): READY=1, STATUS=, the listening socket into the store. */
  systemd?: Notifier;
  /** Descriptors systemd passed (LISTEN_FDS): the stored listening socket of the last run. */
  passed?: PassedFd[];
}

export interface Agent {
  port: number;
  /** The routes the app serves (the docs drift test holds the OpenAPI document to them). */
  routes: readonly Route[];
  /** The declared operations of the app in service, callable without HTTP (src/ops/invoke.ts). */
  readonly operations: Operations;
  /** The config the agent runs on (restart keys as started). */
  readonly config: Config;
  /** The STATUS= line for systemd: address and recording state. */
  statusLine(): string;
  /**
   * Applies a new, validated config to new requests (src/config/reload.ts says which keys wait
   * for a restart; each is logged at warning). Throws a ConfigError, changing nothing, when
   * it cannot apply (a new users file that does not load).
   */
  reload(config: Config): ReloadPlan;
  stop(drainMs?: number): Promise<void>;
  /** Reads the certificate and key again (SIGHUP); a pair that fails keeps the old one, logged. */
  reloadTls(): Promise<void>;
}

/** The secret file of `key`, created when absent; its problems are ConfigErrors (exit 78). */
function secretOf(file: string, key: string, what?: string): Buffer {
  try {
    return loadSecret(file, what).secret;
  } catch (err) {
    if (err instanceof SecretError) throw new ConfigError(`${key}: ${err.message}`);
    throw err;
  }
}

/** The metrics scrape token (created when absent); undefined when metrics are off. */
function metricsTokenOf(config: Config): Buffer | undefined {
  return config.metrics.enabled ? secretOf(config.metrics.tokenFile, 'metrics.tokenFile', 'metrics token file') : undefined;
}

function requireDir(path: string, key: string): void {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch (err) {
    throw new ConfigError(`${key}: ${path} cannot be used: ${errnoName(err)}`);
  }
  if (!isDir) throw new ConfigError(`${key}: ${path} is not a directory`);
}

/** Creates what the agent owns and checks what it needs. Problems are ConfigErrors (exit 78). */
export function prepare(config: Config): void {
  try {
    makeRecordingsDir(config.recordingsDir);
  } catch (err) {
    throw new ConfigError(`recordingsDir: cannot create ${config.recordingsDir}: ${errnoName(err)}`);
  }
  requireDir(config.baseDir, 'baseDir');
  requireDir(config.uploadDir, 'uploadDir');
}

async function createFirstAdmin(config: Config, announce: (text: string) => void): Promise<void> {
  const password = crypto().randomBytes(12).toString('base64url');
  writeUsers(config.usersFile, [newUser('admin', await hashPassword(password), 'admin')]);
  announce(
    `first start: created user "admin" with password ${password}\n` +
      `(shown once; change it with: npm start -- user passwd admin)\n` +
      `log in at http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}/`,
  );
}

/** Listens on the socket systemd passed, or binds afresh (waiting a moment for a just-dropped one's port). */
async function listenOn(handler: Parameters<typeof listen>[0], config: Config, taken: Taken, tls?: TlsOptions): Promise<RunningServer> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await listen(handler, config.host, config.port, taken.fd, tls);
    } catch (err) {
      if (!taken.dropped || attempt >= 20 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export async function startAgent(config: Config, opts: ServeOptions): Promise<Agent> {
  setInternalsLog(opts.log);
  prepare(config);
  void sweepTempFiles(config.uploadDir, opts.log); // in the background: uploads cannot start before listen
  void sweepTempFiles(config.recordingsDir, opts.log, SEGMENT_TEMPS); // older than now: never a segment begun after
  const secret = secretOf(config.jwtSecretFile, 'jwtSecretFile');
  // Counts live as long as the process: a reload's new app counts into the same cells.
  const metrics = new AgentMetrics();
  const users = new UserStore(config.usersFile, opts.log);
  try {
    users.load();
    if (users.size === 0 && opts.firstRunAdmin) {
      await createFirstAdmin(config, opts.announce);
      users.load();
    }
  } catch (err) {
    if (err instanceof UsersFileError) throw new ConfigError(`usersFile: ${err.message}`);
    throw err;
  }
  if (users.size === 0) opts.log.warn(`no users in ${config.usersFile}: add one with "device-agent user add NAME"`);

  const tokens = new Tokens(secret, config.tokenTtlSeconds, users);
  const apiTokens = new ApiTokenStore(config.tokensFile, users, opts.log);
  try {
    apiTokens.load();
  } catch (err) {
    if (err instanceof TokensFileError) throw new ConfigError(`tokensFile: ${err.message}`);
    throw err;
  }
  const audit = createAudit(config.audit.file, (text) => opts.log.error(text));

  // One capture per device, shared by the recording, the live streams and the level meter.
  const captures = new Captures(config.audio.recorder);
  const recorder = new Recorder({
    ...config.audio,
    baseDir: config.baseDir,
    recordingsDir: config.recordingsDir,
    stateFile: recordingStateFile(config.usersFile),
    log: opts.log,
    captures,
    maxFileBytes: config.maxFileBytes,
    onEnded: (result) => {
      metrics.recordings[result].value++;
    },
    audit: (event) => audit.record(event),
  });
  const live = new LiveStreams(captures);
  // The certificate first: a missing or broken pair stops the start (exit 78) before listening.
  const tls = config.tls ? new TlsService(config.tls, opts.log) : undefined;
  tls?.start();
  // With TLS on, /metrics shows its handshake failures and the served certificate's end.
  if (tls)
    metrics.watchTls({
      handshakeFailures: () => tlsMetrics.failedHandshakes,
      certExpirySeconds: () => tlsMetrics.certNotAfterSeconds || undefined,
    });
  let current = config;
  // Retention and the disk guard read the running config at each use: a reload applies to both.
  // The outbox's events go to the stream made below; nothing is published before apply().
  const outbox = new OutboxSlot({
    log: opts.log,
    audit,
    publish: (event, data) => {
      events.emit(event, JSON.stringify(data));
      // A file just verified in the store may go for space (docs/outbox.md, "Retention").
      if ((data as { outcome?: string }).outcome === 'uploaded') recordings.reclaim(true);
    },
  });
  metrics.watchOutbox(() => outbox.figures());
  // Retention's first pass waits for the outbox (contract: each deletion says whether it had been uploaded).
  let outboxApplied!: () => void;
  const afterOutbox = new Promise<void>((resolve) => {
    outboxApplied = resolve;
  });
  const recordings = guardRecordings({
    after: afterOutbox,
    recorder,
    recordingsDir: config.recordingsDir,
    baseDir: config.baseDir,
    order: new RecordingOrder(joinName(posix.dirname(config.usersFile), 'recordings-order.json'), opts.log),
    audio: () => current.audio,
    log: opts.log,
    choose: () => outbox.retentionChoice(config.recordingsDir),
    reclaim: (minFree) => outbox.reclaim(minFree, config.recordingsDir),
    onDeleted: (r) => {
      // With the outbox on, whether it had been uploaded (a lost one is counted: docs/outbox.md).
      const uploaded = outbox.deleted(joinName(config.recordingsDir, r.name));
      const path = posix.relative(config.baseDir, joinName(config.recordingsDir, r.name));
      auditDeleted(audit, path, r.bytes, 'retention', uploaded ?? undefined);
    },
  });
  const sampler = new StatusSampler({
    baseDir: config.baseDir,
    recordingState: () => recorder.state,
    deviceId: () => current.deviceId,
    clockSynchronized: () => clockSynchronized(current.clock.syncedFile),
  });
  const events = new EventHub(eventSources(sampler, recorder, captures));
  // The schedule (docs/schedule.md): nothing of it is loaded until a schedule file exists or its routes are asked.
  const schedule = scheduleHost({
    file: () => current.scheduleFile,
    device: () => current.audio.device,
    minFreeBytes: () => current.audio.minFreeBytes,
    reclaim: () => recordings.reclaim(),
    baseDir: config.baseDir,
    recordingsDir: config.recordingsDir,
    captures,
    log: opts.log,
    synchronized: () => clockSynchronized(current.clock.syncedFile),
    onState: (state) => {
      metrics.scheduleRecording(state.state === 'recording');
      events.emit('schedule', JSON.stringify(state));
    },
    onSegment: (segment) => {
      metrics.segments.value++;
      events.emit('segment', JSON.stringify(segment));
      audit.record({
        event: 'recording.end',
        outcome: 'ok',
        user: null,
        credential: 'schedule',
        client: 'local',
        file: segment.file,
        bytes: segment.sizeBytes,
        stoppedBy: null,
      });
      // The segment enters the order record, and is never the one its own pass deletes.
      const abs = joinName(config.baseDir, segment.file);
      void recordings.retain(abs.startsWith(`${config.recordingsDir}/`) ? abs.slice(config.recordingsDir.length + 1) : undefined);
    },
  });
  await outbox.apply(config).finally(outboxApplied);
  // The MQTT link, loaded only when configured; it connects in the background (never holds up listen).
  let mqtt: MqttLink | undefined;
  const linkDeps = {
    log: opts.log,
    audit,
    sampler,
    recorder,
    events,
    metrics,
    scheduleState: () => schedule.loaded()?.state() ?? SCHEDULE_OFF,
    outboxState: () => outbox.status(),
  };
  /**
   * The link as `c` says, at start and on each SIGHUP: started, reconnected with changed keys
   * (and re-read files), or stopped; a changed deviceId (its topics and client id) is a new link.
   */
  const applyMqtt = async (c: Config, secrets: MqttSecrets | null) => {
    if (mqtt && (!secrets || c.deviceId !== current.deviceId)) {
      void mqtt.stop(); // offline published on its own topics
      mqtt = undefined;
      metrics.watchMqtt(undefined); // its series go with it (docs/mqtt.md)
    }
    if (!c.mqtt || !secrets) return;
    if (mqtt) return void mqtt.reconfigure(c.mqtt, secrets);
    const { startLink } = await import('./mqtt/start.ts');
    // Commands run the running app's operations (a reload's new app included).
    const run: Run = (action, principal, input, client) => app.operations.command(action, principal, input, client);
    mqtt = startLink(c.mqtt, secrets, { ...linkDeps, deviceId: c.deviceId, run });
  };
  const deps = {
    users,
    tokens,
    apiTokens,
    audit,
    limiter: new LoginLimiter(),
    gate: new Gate(1, 64),
    sampler,
    recorder,
    captures,
    live,
    events,
    log: opts.log,
    metrics,
    admitRecording: recordings.admit,
    tlsInfo: tls && (() => tls.info),
    schedule: { service: schedule.service, file: () => current.scheduleFile, audit },
    captureConflict: schedule.conflict,
    outbox,
    mqttStatus: () => mqtt?.status(),
  };
  let app = createApp(config, { ...deps, metricsToken: metricsTokenOf(config) });
  await applyMqtt(config, config.mqtt && readMqttSecrets(config.mqtt)); // the files it names: a problem is a ConfigError (exit 78)
  // A reload builds a new app; requests already running finish on the one they started on.
  const handler: typeof app.handler = (req, res) => app.handler(req, res);
  const taken = takeListener(opts.passed ?? [], config.host, config.port, opts.log, opts.systemd);
  let running: RunningServer;
  try {
    running = await listenOn(handler, config, taken, tls?.serverOptions());
  } catch (err) {
    throw new ConfigError(`port: cannot listen on ${config.host}:${config.port}: ${errnoName(err)}`);
  }
  users.watch();
  apiTokens.watch();
  if (tls && running.tls) {
    const server = running.tls;
    tls.onChange((options) => server.setSecureContext(options));
    tls.watch();
  }
  setTimeout(() => sampler.warm(), 100).unref();
  holdTickMap(); // before the first collection that reduces memory, the one below
  // Then what the start left for the collector goes back, as after a burst: the young
  // generation the start grew and glibc's free pages (idle anonymous memory -2 MB,
  // docs/performance.md).
  setTimeout(settleAfterStart, 300).unref();
  // jsonwebtoken (and node:crypto) load with the first login or token, not before: an
  // idle agent then holds ~1 MB less, and a login's scrypt (~0.25 s) dwarfs their ~20 ms.
  opts.log.info(
    `device-agent listening on http://${config.host}:${running.port}` +
      (tls ? ` and https://${config.host}:${running.port} (certificate ${tls.info.fingerprint}, ${tls.info.spkiPin})` : ''),
  );
  if (opts.systemd && taken.fd === undefined) {
    const fd = serverFd(running.server);
    if (fd !== undefined) opts.systemd.storeFd(fd, LISTENER_NAME);
  }
  // STATUS= (docs/api.md#systemd): the address, the certificate's fingerprint when TLS is on, the recording state.
  function statusLine(): string {
    const https = tls ? ` and https (certificate ${tls.info.fingerprint})` : '';
    return `serving http://${config.host}:${running.port}${https}; recording: ${recorder.state}`;
  }
  opts.systemd?.ready(statusLine());
  // STATUS= follows the recording state (only once READY=1 went out).
  const systemd = opts.systemd;
  if (systemd) recorder.onChange(() => systemd.status(statusLine()));

  return {
    port: running.port,
    get routes() {
      return app.routes;
    },
    get operations() {
      return app.operations;
    },
    get config() {
      return current;
    },
    statusLine,
    reload(next: Config): ReloadPlan {
      const plan = planReload(current, next);
      // Read before anything changes: a bad token file refuses the reload whole.
      const metricsToken = metricsTokenOf(plan.config);
      const nextMqttSecrets = plan.config.mqtt && readMqttSecrets(plan.config.mqtt);
      if (plan.config.usersFile !== current.usersFile) {
        try {
          users.switchTo(plan.config.usersFile);
        } catch (err) {
          if (err instanceof UsersFileError) throw new ConfigError(`usersFile: ${err.message}`);
          throw err;
        }
      }
      if (plan.config.tokensFile !== current.tokensFile) {
        try {
          apiTokens.switchTo(plan.config.tokensFile);
        } catch (err) {
          if (err instanceof TokensFileError) throw new ConfigError(`tokensFile: ${err.message}`);
          throw err;
        }
      }
      for (const what of plan.needRestart) opts.log.warn(`reload: ${what} needs a restart; keeping the running value`);
      audit.setFile(plan.config.audit.file);
      tokens.setTtl(plan.config.tokenTtlSeconds);
      recorder.configure({ ...plan.config.audio, maxFileBytes: plan.config.maxFileBytes });
      captures.configure(plan.config.audio.recorder);
      outbox.apply(plan.config).catch((err: unknown) => opts.log.error(`reload: outbox: ${(err as Error).message}`));
      app = createApp(plan.config, { ...deps, metricsToken }); // a rotated metrics token applies now
      void applyMqtt(plan.config, nextMqttSecrets);
      current = plan.config;
      opts.log.info(`config reloaded: ${plan.changed.length === 0 ? 'no change' : `${plan.changed.join(', ')} changed`}`);
      audit.record({ event: 'config.reload', outcome: 'ok', user: null, credential: 'signal', client: 'local', changed: plan.changed });
      return plan;
    },
    async reloadTls() {
      tls?.reload('reload requested');
    },
    async stop(drainMs = 10_000) {
      const link = mqtt?.stop(); // offline published while requests drain
      users.stop();
      outbox.stop();
      await apiTokens.stop();
      tls?.stop();
      events.close(); // open event streams end now: they must not hold the drain
      live.close(); // so do live audio streams
      recordings.close();
      // A running recording is stopped so its file is finalized and kept (docs/api.md#the-file);
      // then the captures end (nobody is left on them).
      await Promise.all([Promise.all([recorder.shutdown(), schedule.close()]).then(() => captures.close()), running.close(drainMs)]);
      discardLiveTempFiles(); // uploads cut at the drain limit leave no temp file behind
      // The last recording's pass and the order record it changed; a stuck disk does not hold the stop.
      await Promise.race([recordings.flush(), new Promise((resolve) => setTimeout(resolve, FLUSH_LIMIT_MS).unref())]);
      await link;
      await audit.close();
    },
  };
}
