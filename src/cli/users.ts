// `device-agent user add|passwd|remove|list`: the only writer of the users file.
import { hashPassword } from '../auth/passwords.ts';
import { newSessionVersion, newUser, readUsers, validUsername, writeUsers } from '../auth/users.ts';
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

function checkName(name: string | undefined): string {
  if (!name) throw new CliError('a user name is required');
  if (!validUsername(name)) {
    throw new CliError(`invalid user name "${name}": 1-64 of A-Z a-z 0-9 . _ @ -, starting with a letter or digit`);
  }
  return name;
}

export async function userCommand(sub: string | undefined, name: string | undefined, usersFile: string,
  out: (line: string) => void): Promise<void> {
  switch (sub) {
    case 'list': {
      for (const u of readUsers(usersFile)) out(`${u.username}\t${u.id}`);
      return;
    }
    case 'add': {
      const username = checkName(name);
      if (readUsers(usersFile).some((u) => u.username === username)) throw new CliError(`user ${username} already exists`);
      const hash = await hashPassword(await readNewPassword());
      // Read again after the prompt: another CLI may have written meanwhile.
      const users = readUsers(usersFile);
      if (users.some((u) => u.username === username)) throw new CliError(`user ${username} already exists`);
      const user = newUser(username, hash);
      writeUsers(usersFile, [...users, user]);
      out(`added user ${username} (${user.id})`);
      return;
    }
    case 'passwd': {
      const username = checkName(name);
      if (!readUsers(usersFile).some((u) => u.username === username)) throw new CliError(`no user ${username}`);
      const hash = await hashPassword(await readNewPassword());
      const users = readUsers(usersFile);
      const user = users.find((u) => u.username === username);
      if (!user) throw new CliError(`no user ${username}`);
      Object.assign(user, { hash, sessionVersion: newSessionVersion() });
      writeUsers(usersFile, users);
      out(`password of ${username} changed; its tokens stop working`);
      return;
    }
    case 'remove': {
      const username = checkName(name);
      const users = readUsers(usersFile);
      const rest = users.filter((u) => u.username !== username);
      if (rest.length === users.length) throw new CliError(`no user ${username}`);
      writeUsers(usersFile, rest);
      out(`removed user ${username}; its tokens stop working`);
      return;
    }
    default:
      throw usageError(`unknown user command "${sub ?? ''}": use add, passwd, remove or list`);
  }
}
