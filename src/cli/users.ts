// `device-agent user add|set|passwd|remove|list`: the users file's writer on the command
// line. The running agent writes it too (a password re-hashed at login, src/auth/rehash.ts):
// every change is made under the file's lock (updateUsersSync).
import { createAudit, type Audit } from '../audit/trail.ts';
import { hashPassword } from '../auth/passwords.ts';
import { isRole, ROLES, type Role } from '../auth/scopes.ts';
import { newSessionVersion, newUser, normalizeDirectory, readUsers, updateUsersSync, validUsername } from '../auth/users.ts';
import type { Config } from '../config/config.ts';
import { directoryInside } from '../files/scope-dir.ts';
import { readNewPassword } from './password.ts';

/** A CLI failure: its message for stderr and the exit code it ends with. */
export class CliError extends Error {
  /** 64 (EX_USAGE) for a wrong command line, which also prints where help is; 1 for a refusal. */
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** A command line the CLI cannot run: exit 64 (EX_USAGE), with a pointer to --help. */
export const usageError = (message: string) => new CliError(message, 64);

export type Options = Map<string, string | true>;

function checkName(name: string | undefined): string {
  if (!name) throw new CliError('a user name is required');
  if (!validUsername(name)) {
    throw new CliError(`invalid user name "${name}": 1-64 of A-Z a-z 0-9 . _ @ -, starting with a letter or digit`);
  }
  return name;
}

/** Refuses options the command does not take (exit 64). */
export function onlyOptions(options: Options, allowed: string[], command: string): void {
  for (const key of options.keys()) {
    if (!allowed.includes(key)) throw usageError(`${command} does not take --${key}`);
  }
}

function roleOption(options: Options): Role | undefined {
  const role = options.get('role');
  if (role === undefined) return undefined;
  if (!isRole(role)) throw usageError(`--role must be one of ${ROLES.join(', ')}`);
  return role;
}

/** --directory DIR: relative to baseDir, an existing directory inside it (exit 1 naming it). */
export function directoryOption(options: Options, config: Config): string | null | undefined {
  const text = options.get('directory');
  if (text === undefined) return undefined;
  if (text === true) throw usageError('--directory needs a value');
  const dir = normalizeDirectory(text);
  if (dir === undefined || (dir !== null && !directoryInside(config.baseDir, dir))) {
    throw new CliError(`directory ${text} is not a directory inside the base directory ${config.baseDir}`);
  }
  return dir;
}

/** The CLI's audit events: the journal (where journald runs) and audit.file; never standard output. */
export async function withCliAudit(config: Config, work: (audit: Audit) => Promise<void>): Promise<void> {
  const audit = createAudit(config.audit.file, (text) => process.stderr.write(`device-agent: ${text}\n`), 'cli');
  try {
    await work(audit);
  } finally {
    await audit.close();
  }
}

const cliEvent = (event: string, user: string, extra: Record<string, unknown> = {}) => ({
  event,
  outcome: 'ok' as const,
  user,
  credential: 'cli',
  client: 'local',
  ...extra,
});

export async function userCommand(
  sub: string | undefined,
  name: string | undefined,
  config: Config,
  options: Options,
  out: (line: string) => void,
): Promise<void> {
  const usersFile = config.usersFile;
  switch (sub) {
    case 'list': {
      onlyOptions(options, [], 'user list');
      for (const u of readUsers(usersFile)) out(`${u.username}\t${u.role}\t${u.directory ?? '-'}\t${u.id}`);
      return;
    }
    case 'add': {
      onlyOptions(options, ['role', 'directory'], 'user add');
      const username = checkName(name);
      const role = roleOption(options) ?? 'operator';
      const directory = directoryOption(options, config) ?? null;
      if (readUsers(usersFile).some((u) => u.username === username)) throw new CliError(`user ${username} already exists`);
      const hash = await hashPassword(await readNewPassword());
      // Read again after the prompt, under the lock: another writer may have written meanwhile.
      const user = updateUsersSync(usersFile, (users) => {
        if (users.some((u) => u.username === username)) throw new CliError(`user ${username} already exists`);
        const added = newUser(username, hash, role, directory);
        return { users: [...users, added], value: added };
      });
      await withCliAudit(config, async (audit) => audit.record(cliEvent('user.add', username, { role, directory })));
      out(`added user ${username} (${user.id}), role ${role}${directory ? `, directory ${directory}` : ''}`);
      return;
    }
    case 'set': {
      onlyOptions(options, ['role', 'directory', 'no-directory'], 'user set');
      const username = checkName(name);
      const role = roleOption(options);
      if (options.has('directory') && options.has('no-directory')) throw usageError('--directory and --no-directory exclude each other');
      const directory = options.has('no-directory') ? null : directoryOption(options, config);
      if (role === undefined && directory === undefined) throw usageError('user set needs --role, --directory or --no-directory');
      const user = updateUsersSync(usersFile, (users) => {
        const found = users.find((u) => u.username === username);
        if (!found) throw new CliError(`no user ${username}`);
        if (role !== undefined) found.role = role;
        if (directory !== undefined) found.directory = directory;
        return { users: [...users], value: found };
      });
      await withCliAudit(config, async (audit) =>
        audit.record(cliEvent('user.set', username, { role: user.role, directory: user.directory })),
      );
      out(`user ${username}: role ${user.role}, directory ${user.directory ?? 'none'} (its sessions and tokens follow within 2 s)`);
      return;
    }
    case 'passwd': {
      onlyOptions(options, [], 'user passwd');
      const username = checkName(name);
      if (!readUsers(usersFile).some((u) => u.username === username)) throw new CliError(`no user ${username}`);
      const hash = await hashPassword(await readNewPassword());
      updateUsersSync(usersFile, (users) => {
        const user = users.find((u) => u.username === username);
        if (!user) throw new CliError(`no user ${username}`);
        Object.assign(user, { hash, sessionVersion: newSessionVersion() });
        return { users: [...users], value: undefined };
      });
      await withCliAudit(config, async (audit) => audit.record(cliEvent('user.passwd', username)));
      out(`password of ${username} changed; its login tokens stop working (API tokens stay)`);
      return;
    }
    case 'remove': {
      onlyOptions(options, [], 'user remove');
      const username = checkName(name);
      updateUsersSync(usersFile, (users) => {
        const rest = users.filter((u) => u.username !== username);
        if (rest.length === users.length) throw new CliError(`no user ${username}`);
        return { users: rest, value: undefined };
      });
      await withCliAudit(config, async (audit) => audit.record(cliEvent('user.remove', username)));
      out(`removed user ${username}; its tokens stop working`);
      return;
    }
    default:
      throw usageError(`unknown user command "${sub ?? ''}": use add, set, passwd, remove or list`);
  }
}
