// The users file: read and validated by the agent (which reloads it when it changes),
// written atomically, under its lock, by the CLI and by a login's re-hash (src/auth/rehash.ts).
import { readStateList, replaceStateFile } from '../util/atomic.ts';
import { crypto } from '../util/crypto.ts';
import { fileStamp, pollStamp, type Poller } from '../util/file-stamp.ts';
import type { Log } from '../util/logger.ts';
import { withFileLock, withFileLockSync } from './file-lock.ts';
import { isRole, type Role } from './scopes.ts';

export interface User {
  id: string;
  username: string;
  hash: string;
  /** Changes with every password change; tokens carry it, so old tokens stop working. */
  sessionVersion: string;
  /** What the user may do; a users file written before roles existed reads as `admin`. */
  role: Role;
  /** A directory relative to the base directory that confines the user's file routes; null: none. */
  directory: string | null;
}

export class UsersFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsersFileError';
  }
}

const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

export function validUsername(name: string): boolean {
  return USERNAME.test(name);
}

export function newSessionVersion(): string {
  return crypto().randomBytes(9).toString('base64url');
}

export function newUser(username: string, hash: string, role: Role = 'operator', directory: string | null = null): User {
  return { id: crypto().randomUUID(), username, hash, sessionVersion: newSessionVersion(), role, directory };
}

/**
 * A credential's directory in its one spelling: relative to the base, `/`-separated, no
 * `.`, `..`, empty or leading/trailing parts; '' (the base itself) is no limit (null).
 * Undefined when the text cannot be one.
 */
export function normalizeDirectory(text: string): string | null | undefined {
  if (text.includes('\0') || text.startsWith('/')) return undefined;
  const parts = text.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) return undefined;
  return parts.length === 0 ? null : parts.join('/');
}

/** Reads the users file; a missing file is an empty list. Throws UsersFileError naming what is wrong. */
export function readUsers(file: string): User[] {
  const list = readStateList(file, 'users', 'users file', (text) => new UsersFileError(text));
  const seen = new Set<string>();
  return list.map((u, i) => {
    const x = u as Partial<User> | null;
    if (
      !x ||
      typeof x.id !== 'string' ||
      typeof x.username !== 'string' ||
      typeof x.hash !== 'string' ||
      typeof x.sessionVersion !== 'string' ||
      !validUsername(x.username)
    ) {
      throw new UsersFileError(`users file ${file}: entry ${i} is not a valid user`);
    }
    if (seen.has(x.username)) throw new UsersFileError(`users file ${file}: user ${x.username} appears twice`);
    seen.add(x.username);
    // Written before roles existed: admin, so that an upgrade changes no one's rights.
    const role = x.role === undefined ? 'admin' : x.role;
    if (!isRole(role)) throw new UsersFileError(`users file ${file}: user ${x.username} has an unknown role`);
    const directory =
      x.directory === undefined || x.directory === null
        ? null
        : typeof x.directory === 'string'
          ? normalizeDirectory(x.directory)
          : undefined;
    if (directory === undefined) throw new UsersFileError(`users file ${file}: user ${x.username} has an invalid directory`);
    return { id: x.id, username: x.username, hash: x.hash, sessionVersion: x.sessionVersion, role, directory };
  });
}

/**
 * Replaces the users file atomically: temp file in the same directory, fsync, rename,
 * fsync the directory. Keeps the owner and mode of the file it replaces; a new file is
 * 0600 and, when run as root, owned like its directory (the service user's state dir).
 * A file that may have another writer is changed through updateUsers instead.
 */
export function writeUsers(file: string, users: User[]): void {
  replaceStateFile(file, JSON.stringify({ users }, null, 2) + '\n');
}

/**
 * Reads, changes and writes the users file under its lock (docs/behaviour.md#lock-files):
 * the CLI and a login's re-hash both rewrite it, and each reads it again inside the lock,
 * so neither write is lost. `change` returns the new list (the same array: no write) and a
 * value for the caller; a throw writes nothing.
 */
export function updateUsersSync<T>(file: string, change: (users: User[]) => { users: User[]; value: T }): T {
  return withFileLockSync(file, () => applyChange(file, change));
}

export function updateUsers<T>(file: string, change: (users: User[]) => { users: User[]; value: T }): Promise<T> {
  return withFileLock(file, () => applyChange(file, change));
}

function applyChange<T>(file: string, change: (users: User[]) => { users: User[]; value: T }): T {
  const before = readUsers(file);
  const { users, value } = change(before);
  if (users !== before) writeUsers(file, users);
  return value;
}

/** The agent's view of the users: reloaded within a second of the CLI changing the file. */
export class UserStore {
  private byName = new Map<string, User>();
  private byId = new Map<string, User>();
  private loadedKey = '';
  private poller: Poller | undefined;

  constructor(
    private file: string,
    private readonly log: Log,
  ) {}

  /** A config reload naming another users file: loaded now (a UsersFileError keeps the old one), then polled. */
  switchTo(file: string): void {
    const key = fileStamp(file);
    const users = readUsers(file);
    this.file = file;
    this.loadedKey = key;
    this.set(users);
  }

  /** First load: an unreadable or corrupt file is an error (the start fails). */
  load(): number {
    this.loadedKey = fileStamp(this.file);
    this.set(readUsers(this.file));
    return this.byName.size;
  }

  /**
   * Polls the file once a second (pollStamp: a stat on the timer it shares with the
   * tokens file; works across the CLI's rename) against what load() read, so a change
   * between the load and the first poll is seen too.
   */
  watch(intervalMs = 1000): void {
    this.poller = pollStamp(
      () => this.file,
      intervalMs,
      (key) => {
        if (key === this.loadedKey || !this.poller) return;
        this.loadedKey = key;
        this.reload();
      },
    );
  }

  stop(): void {
    this.poller?.stop();
    this.poller = undefined;
  }

  reload(): void {
    try {
      this.set(readUsers(this.file));
      this.log.info(`users file ${this.file} reloaded: ${this.byName.size} user(s)`);
    } catch (err) {
      // Keeping the last good users is safe: a broken file must not lock everybody out,
      // and removals that did not land cannot be known from a file we cannot read.
      this.log.error(`${(err as Error).message}; keeping the last good users (${this.byName.size})`);
    }
  }

  private set(users: User[]): void {
    this.byName = new Map(users.map((u) => [u.username, u]));
    this.byId = new Map(users.map((u) => [u.id, u]));
  }

  findByName(name: string): User | undefined {
    return this.byName.get(name);
  }

  findById(id: string): User | undefined {
    return this.byId.get(id);
  }

  all(): User[] {
    return [...this.byName.values()];
  }

  /** The users file this store reads (a login's re-hash writes it: src/auth/rehash.ts). */
  get path(): string {
    return this.file;
  }

  get size(): number {
    return this.byName.size;
  }
}
