// `device-agent config check`: the config and every path it names, without changing anything.
import { errnoName } from '../util/errno.ts';
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadSecret } from '../auth/secret.ts';
import { readTokens } from '../auth/api-tokens.ts';
import { readUsers } from '../auth/users.ts';
import { ConfigError, type Config, type TlsConfig } from '../config/config.ts';
import { toBeMade } from '../tls/create.ts';
import { issuedBy } from '../tls/client-ca.ts';
import { loadChecked, loadClientCaChecked } from '../tls/service.ts';

function dirProblem(path: string): string | undefined {
  try {
    return statSync(path).isDirectory() ? undefined : `${path} is not a directory`;
  } catch (err) {
    return `${path}: ${errnoName(err)}`;
  }
}

/** Throws a ConfigError naming the first key whose path cannot serve; returns notes otherwise. */
export function checkConfig(config: Config): string[] {
  const notes: string[] = [];
  const fail = (key: string, problem: string) => {
    throw new ConfigError(`${key}: ${problem}`);
  };

  const base = dirProblem(config.baseDir);
  if (base) fail('baseDir', base);
  const upload = dirProblem(config.uploadDir);
  if (upload) fail('uploadDir', upload);
  if (existsSync(config.recordingsDir)) {
    const rec = dirProblem(config.recordingsDir);
    if (rec) fail('recordingsDir', rec);
  } else {
    notes.push(`recordingsDir ${config.recordingsDir} will be created at start`);
  }

  const usersDir = dirProblem(dirname(config.usersFile));
  if (usersDir) fail('usersFile', usersDir);
  try {
    const n = readUsers(config.usersFile).length;
    notes.push(n === 0 ? `usersFile ${config.usersFile}: no users yet` : `usersFile: ${n} user(s)`);
  } catch (err) {
    fail('usersFile', (err as Error).message);
  }
  // The agent reads the tokens file on first use; a broken one is found here before then.
  try {
    const n = readTokens(config.tokensFile).length;
    notes.push(`tokensFile: ${n} API token(s)`);
  } catch (err) {
    fail('tokensFile', (err as Error).message);
  }

  /** A secret file that exists must load; an absent one needs a directory to be created in. */
  const checkSecret = (file: string, key: string, what: string) => {
    if (existsSync(file)) {
      try {
        loadSecret(file, what);
      } catch (err) {
        fail(key, (err as Error).message);
      }
    } else {
      const dir = dirProblem(dirname(file));
      if (dir) fail(key, dir);
      notes.push(`${key} ${file} will be created at start`);
    }
  };
  checkSecret(config.jwtSecretFile, 'jwtSecretFile', 'JWT secret file');
  if (config.metrics.enabled) checkSecret(config.metrics.tokenFile, 'metrics.tokenFile', 'metrics token file');
  if (config.tls) notes.push(...tlsNotes(config.tls));
  return notes;
}

/**
 * The certificate pair: to be made at start, or loaded and checked now; the client CA
 * file, loaded and checked (a ConfigError names the file).
 */
function tlsNotes(tls: TlsConfig): string[] {
  const notes = [pairNote(tls)];
  if (tls.clientCaFile) notes.push(`tls: client certificates required, ${issuedBy(loadClientCaChecked(tls.clientCaFile))}`);
  return notes;
}

function pairNote(tls: TlsConfig): string {
  if (toBeMade(tls)) return `tls: ${tls.certFile} and ${tls.keyFile} will be created at start (self-signed)`;
  const { info } = loadChecked(tls);
  return `tls: ${tls.certFile}: ${info.subject}, fingerprint ${info.fingerprint}, valid until ${info.notAfter}`;
}
