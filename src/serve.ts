// Starting the service: prepare directories, secret and users, build the app, listen.
import { errnoName } from './errno.ts';
import { mkdirSync, statSync } from 'node:fs';
import { createApp } from './app.ts';
import { Recorder, recordingStateFile } from './audio/recorder.ts';
import { LoginLimiter } from './auth/limiter.ts';
import { Gate, hashPassword } from './auth/passwords.ts';
import { loadSecret, SecretError } from './auth/secret.ts';
import { Tokens } from './auth/tokens.ts';
import { newUser, UserStore, UsersFileError, writeUsers } from './auth/users.ts';
import { ConfigError, type Config } from './config.ts';
import { crypto } from './crypto.ts';
import { sweepTempFiles } from './files/sweep.ts';
import { discardLiveTempFiles } from './files/tempfile.ts';
import type { LogLine } from './http/log.ts';
import { setInternalsLog } from './http/node-internals.ts';
import type { Route } from './http/types.ts';
import { listen, type RunningServer } from './http/server.ts';
import { AgentMetrics } from './metrics/agent.ts';
import { StatusSampler } from './status/sampler.ts';

export interface ServeOptions {
  /** Development mode: create user admin with a random password on first start. */
  firstRunAdmin: boolean;
  log: LogLine;
  /** Written once to stdout on first start in development mode. */
  announce: (text: string) => void;
}

export interface Agent {
  port: number;
  /** The routes the app serves (the docs drift test holds the OpenAPI document to them). */
  routes: readonly Route[];
  stop(drainMs?: number): Promise<void>;
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
    mkdirSync(config.recordingsDir, { recursive: true, mode: 0o755 });
  } catch (err) {
    throw new ConfigError(`recordingsDir: cannot create ${config.recordingsDir}: ${errnoName(err)}`);
  }
  requireDir(config.baseDir, 'baseDir');
  requireDir(config.uploadDir, 'uploadDir');
}

async function createFirstAdmin(config: Config, announce: (text: string) => void): Promise<void> {
  const password = crypto().randomBytes(12).toString('base64url');
  writeUsers(config.usersFile, [newUser('admin', await hashPassword(password))]);
  announce(`first start: created user "admin" with password ${password}\n` +
    `(shown once; change it with: npm start -- user passwd admin)`);
}

export async function startAgent(config: Config, opts: ServeOptions): Promise<Agent> {
  setInternalsLog(opts.log);
  prepare(config);
  void sweepTempFiles(config.uploadDir, opts.log); // in the background: uploads cannot start before listen
  const secret = secretOf(config.jwtSecretFile, 'jwtSecretFile');
  const metricsToken = config.metrics.enabled ? secretOf(config.metrics.tokenFile, 'metrics.tokenFile', 'metrics token file') : undefined;
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
  if (users.size === 0) opts.log(`no users in ${config.usersFile}: add one with "device-agent user add NAME"`);

  const tokens = new Tokens(secret, config.tokenTtlSeconds, users);
  const recorder = new Recorder({
    ...config.audio, baseDir: config.baseDir, recordingsDir: config.recordingsDir,
    stateFile: recordingStateFile(config.usersFile), log: opts.log,
    onEnded: (result) => { metrics.recordings[result].value++; },
  });
  const sampler = new StatusSampler({ baseDir: config.baseDir, recordingState: () => recorder.state });
  const app = createApp(config, {
    users,
    tokens,
    limiter: new LoginLimiter(),
    gate: new Gate(1, 64),
    sampler,
    recorder,
    log: opts.log,
    logError: opts.log,
    metrics,
    metricsToken,
  });
  let running: RunningServer;
  try {
    running = await listen(app.handler, config.host, config.port);
  } catch (err) {
    throw new ConfigError(`port: cannot listen on ${config.host}:${config.port}: ${errnoName(err)}`);
  }
  users.watch();
  setTimeout(() => sampler.warm(), 100).unref();
  // jsonwebtoken (and node:crypto) load with the first login or token, not before: an
  // idle agent then holds ~1 MB less, and a login's scrypt (~0.25 s) dwarfs their ~20 ms.
  opts.log(`device-agent listening on http://${config.host}:${running.port}`);

  return {
    port: running.port,
    routes: app.routes,
    async stop(drainMs = 10_000) {
      users.stop();
      // A running recording is stopped so its file is finalized and kept (CONTRACT §5).
      await Promise.all([recorder.shutdown(), running.close(drainMs)]);
      discardLiveTempFiles(); // uploads cut at the drain limit leave no temp file behind
    },
  };
}
