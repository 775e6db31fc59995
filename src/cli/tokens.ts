// `device-agent token create|list|revoke` on the device: the same file and lock as the
// running agent's token routes (src/auth/api-tokens.ts), so neither loses the other's writes;
// the same rule for what a token may have (src/auth/token-grant.ts).
import {
  addToken,
  ClockNotSet,
  publicRecord,
  readTokens,
  TOKEN_NAME,
  TokenNameTaken,
  updateTokensSync,
  type StoredToken,
} from '../auth/api-tokens.ts';
import { isScope, type Scope } from '../auth/scopes.ts';
import { grant, TokenTooPowerful } from '../auth/token-grant.ts';
import { readUsers, type User } from '../auth/users.ts';
import type { Config } from '../config/config.ts';
import { CliError, directoryOption, onlyOptions, usageError, withCliAudit, type Options } from './users.ts';

function userOption(options: Options, config: Config, required: boolean): User | undefined {
  const name = options.get('user');
  if (name === undefined) {
    if (required) throw usageError('--user USER is required');
    return undefined;
  }
  if (name === true) throw usageError('--user needs a value');
  const user = readUsers(config.usersFile).find((u) => u.username === name);
  if (!user) throw new CliError(`no user ${name}`);
  return user;
}

function scopesOption(options: Options): Scope[] | undefined {
  const text = options.get('scopes');
  if (text === undefined) return undefined;
  if (text === true) throw usageError('--scopes needs a value');
  const scopes = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (scopes.length === 0 || !scopes.every(isScope)) {
    throw usageError('--scopes takes a comma-separated list of: status, files:read, files:write, audio, metrics, admin');
  }
  return scopes;
}

/** The token's rights by the API's rule (src/auth/token-grant.ts), the device's administrator asking: its user's limit only. */
function grantFor(user: User, scopes: Scope[] | undefined, directory: string | null | undefined) {
  try {
    return grant(user, null, { scopes, directory });
  } catch (err) {
    if (!(err instanceof TokenTooPowerful)) throw err;
    const why = err.outside
      ? `${err.outside.asked ?? 'the whole base'} is outside ${user.username}'s directory ${user.directory}`
      : `${user.username} (${user.role}) has no ${err.over.join(', ')}`;
    throw new CliError(`a token cannot have more rights than its user: ${why}`);
  }
}

function expiryOption(options: Options): number | null {
  if (options.has('no-expiry')) {
    if (options.has('expires-days')) throw usageError('--expires-days and --no-expiry exclude each other');
    return null;
  }
  const text = options.get('expires-days');
  if (text === undefined) return 365;
  const days = Number(text);
  if (typeof text !== 'string' || !/^\d+$/.test(text) || days < 1 || days > 3650)
    throw usageError('--expires-days must be an integer from 1 to 3650');
  return days;
}

const row = (t: StoredToken) =>
  [
    t.id,
    t.name,
    t.username,
    t.scopes.join(','),
    t.directory ?? '-',
    t.expiresAt ?? 'never',
    t.lastUsedAt ?? 'never',
    t.lastUsedFrom ?? '-',
  ].join('\t');

export async function tokenCommand(
  sub: string | undefined,
  name: string | undefined,
  config: Config,
  options: Options,
  out: (line: string) => void,
): Promise<void> {
  const file = config.tokensFile;
  switch (sub) {
    case 'create': {
      onlyOptions(options, ['user', 'scopes', 'directory', 'expires-days', 'no-expiry'], 'token create');
      if (!name || !TOKEN_NAME.test(name)) throw usageError('token create NAME: NAME is 1-64 of A-Z a-z 0-9 . _ @ -');
      const user = userOption(options, config, true)!;
      const { scopes, directory } = grantFor(user, scopesOption(options), directoryOption(options, config));
      let made;
      try {
        made = updateTokensSync(file, (tokens) =>
          addToken(tokens, { name, user, scopes, directory, expiresInDays: expiryOption(options) }),
        );
      } catch (err) {
        if (err instanceof TokenNameTaken) throw new CliError(`a token named ${name} already exists for ${user.username}`);
        if (err instanceof ClockNotSet) throw new CliError(err.message);
        throw err;
      }
      await withCliAudit(config, async (audit) =>
        audit.record({
          event: 'token.create',
          outcome: 'ok',
          user: user.username,
          credential: 'cli',
          client: 'local',
          name,
          scopes,
        }),
      );
      const r = made.record;
      process.stderr.write(
        `token ${r.name} (${r.id}) for ${r.username}: ${r.scopes.join(', ')}` +
          `${r.directory ? `, directory ${r.directory}` : ''}, expires ${r.expiresAt ?? 'never'}\n` +
          'It is shown this once; store it now.\n',
      );
      out(made.token);
      return;
    }
    case 'list': {
      onlyOptions(options, ['user'], 'token list');
      if (name) throw usageError(`unexpected argument "${name}"`);
      const user = userOption(options, config, false);
      const tokens = readTokens(file).filter((t) => !user || t.userId === user.id);
      out('ID\tNAME\tUSER\tSCOPES\tDIRECTORY\tEXPIRES\tLAST USED\tFROM');
      for (const t of tokens) out(row(t));
      return;
    }
    case 'revoke': {
      onlyOptions(options, ['user'], 'token revoke');
      if (!name) throw usageError('token revoke ID|NAME --user USER');
      const user = userOption(options, config, true)!;
      const gone = updateTokensSync(file, (tokens) => {
        const t = tokens.find((x) => x.userId === user.id && (x.id === name || x.name === name));
        return t ? { tokens: tokens.filter((x) => x !== t), value: t } : { tokens, value: undefined };
      });
      if (!gone) throw new CliError(`no token ${name} of ${user.username}`);
      await withCliAudit(config, async (audit) =>
        audit.record({
          event: 'token.revoke',
          outcome: 'ok',
          user: user.username,
          credential: 'cli',
          client: 'local',
          name: gone.name,
        }),
      );
      out(`revoked token ${gone.name} (${publicRecord(gone).id}); refused within 2 s`);
      return;
    }
    default:
      throw usageError(`unknown token command "${sub ?? ''}": use create, list or revoke`);
  }
}
