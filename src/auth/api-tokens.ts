import { readStateList, replaceStateFile } from '../util/atomic.ts';
import { clockPlausible } from '../util/clock.ts';
import { crypto } from '../util/crypto.ts';
import { fileStamp, pollStamp, type Poller } from '../util/file-stamp.ts';
import type { Scope } from '../http/types.ts';
import type { Log } from '../util/logger.ts';
import { withFileLock, withFileLockSync } from './file-lock.ts';
import { isScope, NO_DIRECTORY, narrowerDirectory, ROLE_SCOPES, sortScopes, type Principal } from './scopes.ts';
import { normalizeDirectory, type User } from './users.ts';
import { isoTime } from '../util/time.ts';

export const TOKEN_PREFIX = 'dat_';
const TOKEN_TEXT = /^dat_[A-Za-z0-9_-]{43}$/;
export const TOKEN_NAME = /^[A-Za-z0-9._@-]{1,64}$/;
/**
 * lastUsedAt may lag this much: the file is written for it at most every 10 minutes, and at
 * a clean stop. Once a minute was ~1,440 fsyncs and ~29 MB a day on an SD card.
 */
export const LAST_USED_FLUSH_MS = 10 * 60_000;

/** A token as stored: the record of the API plus the owner's id and the text's hash. */
export interface StoredToken {
  id: string;
  name: string;
  username: string;
  userId: string;
  scopes: Scope[];
  directory: string | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  lastUsedFrom: string | null;
  /** Hex SHA-256 of the token's text. */
  sha256: string;
}

/** What the API and the CLI show of a token: never its hash, never its text. */
export type TokenRecord = Omit<StoredToken, 'sha256' | 'userId'>;

export const publicRecord = ({ sha256: _h, userId: _u, ...rest }: StoredToken): TokenRecord => rest;

export class TokensFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokensFileError';
  }
}

export const hashToken = (text: string): string => crypto().createHash('sha256').update(text).digest('hex');

export function newTokenText(): string {
  return TOKEN_PREFIX + crypto().randomBytes(32).toString('base64url');
}

/** Reads the tokens file; a missing file is an empty list. Throws TokensFileError naming what is wrong. */
export function readTokens(file: string): StoredToken[] {
  const list = readStateList(file, 'tokens', 'tokens file', (text) => new TokensFileError(text));
  const str = (v: unknown) => typeof v === 'string';
  const strOrNull = (v: unknown) => v === null || typeof v === 'string';
  return list.map((t, i) => {
    const x = t as StoredToken | null;
    if (
      !x ||
      !str(x.id) ||
      !str(x.name) ||
      !str(x.username) ||
      !str(x.userId) ||
      !Array.isArray(x.scopes) ||
      !x.scopes.every(isScope) ||
      !strOrNull(x.directory) ||
      !str(x.createdAt) ||
      !strOrNull(x.expiresAt) ||
      !strOrNull(x.lastUsedAt) ||
      !strOrNull(x.lastUsedFrom) ||
      !str(x.sha256) ||
      !/^[0-9a-f]{64}$/.test(x.sha256)
    ) {
      throw new TokensFileError(`tokens file ${file}: entry ${i} is not a valid token`);
    }
    const directory = x.directory === null ? null : normalizeDirectory(x.directory);
    if (directory === undefined) throw new TokensFileError(`tokens file ${file}: entry ${i} has an invalid directory`);
    return {
      id: x.id,
      name: x.name,
      username: x.username,
      userId: x.userId,
      scopes: sortScopes(x.scopes),
      directory,
      createdAt: x.createdAt,
      expiresAt: x.expiresAt,
      lastUsedAt: x.lastUsedAt,
      lastUsedFrom: x.lastUsedFrom,
      sha256: x.sha256,
    };
  });
}

/** Atomic replace, mode 0600 (kept from the file it replaces), owned like its directory when new. */
function writeTokens(file: string, tokens: StoredToken[]): void {
  replaceStateFile(file, JSON.stringify({ tokens }, null, 2) + '\n');
}

/**
 * Reads, changes and writes the tokens file under its lock. `change` returns the new list
 * (or the same array for no write) and a value for the caller.
 */
export function updateTokensSync<T>(file: string, change: (tokens: StoredToken[]) => { tokens: StoredToken[]; value: T }): T {
  return withFileLockSync(file, () => {
    const before = readTokens(file);
    const { tokens, value } = change(before);
    if (tokens !== before) writeTokens(file, tokens);
    return value;
  });
}

export async function updateTokens<T>(file: string, change: (tokens: StoredToken[]) => { tokens: StoredToken[]; value: T }): Promise<T> {
  return withFileLock(file, () => {
    const before = readTokens(file);
    const { tokens, value } = change(before);
    if (tokens !== before) writeTokens(file, tokens);
    return value;
  });
}

export interface NewToken {
  name: string;
  user: Pick<User, 'id' | 'username'>;
  scopes: Scope[];
  directory: string | null;
  expiresInDays: number | null;
}

/** A token name the user already has: the caller answers 409 (API) or exit 1 (CLI). */
export class TokenNameTaken extends Error {}

/**
 * An expiry asked for while the wall clock is before the build (docs/behaviour.md#the-clock):
 * it would be counted from 1970 and end when NTP sets the clock. 503 (API) or exit 1 (CLI).
 */
export class ClockNotSet extends Error {
  constructor() {
    super('the device clock is not set');
    this.name = 'ClockNotSet';
  }
}

/** Adds a token to a list read under the lock; the text is returned once, never stored. */
export function addToken(
  tokens: StoredToken[],
  spec: NewToken,
  now = new Date(),
): { tokens: StoredToken[]; value: { record: TokenRecord; token: string } } {
  if (spec.expiresInDays !== null && !clockPlausible(now.getTime())) throw new ClockNotSet();
  if (tokens.some((t) => t.userId === spec.user.id && t.name === spec.name)) throw new TokenNameTaken(spec.name);
  const token = newTokenText();
  const stored: StoredToken = {
    id: crypto().randomUUID(),
    name: spec.name,
    username: spec.user.username,
    userId: spec.user.id,
    scopes: sortScopes(spec.scopes),
    directory: spec.directory,
    createdAt: isoTime(now.getTime()),
    expiresAt: spec.expiresInDays === null ? null : isoTime(now.getTime() + spec.expiresInDays * 86_400_000),
    lastUsedAt: null,
    lastUsedFrom: null,
    sha256: hashToken(token),
  };
  return { tokens: [...tokens, stored], value: { record: publicRecord(stored), token } };
}

/** A token's rights now: what it was given, intersected with what its user has. */
function tokenPrincipal(t: StoredToken, user: User): Principal {
  const roleScopes = ROLE_SCOPES[user.role];
  const scopes = new Set(t.scopes.filter((s) => roleScopes.has(s)));
  const narrowed = narrowerDirectory(user.directory, t.directory);
  // Limits that do not nest leave no file the token may touch.
  const directory = narrowed === false ? NO_DIRECTORY : narrowed;
  return { id: user.id, username: user.username, scopes, directory, credential: `token:${t.name}` };
}

interface Live {
  stored: StoredToken;
  expiresAtMs: number;
  /** The principal last made, and the user object it was made from (a users reload makes new ones). */
  principal?: Principal;
  principalOf?: User;
}

/** Why a token is refused: the bearer check answers the 401 of that name. */
export type ApiTokenRefusal = 'invalid' | 'expired' | 'revoked';

/**
 * The agent's view of the tokens file: hashes in a Map, reloaded within a second of a
 * change. Read on first use (the first API token presented, or a token route), not at
 * start: parsing a file of 1,000 tokens left ~2 MB of V8's pages resident in an agent that
 * may never see an API token (docs/performance.md).
 */
export class ApiTokenStore {
  private byHash = new Map<string, Live>();
  private loaded = false;
  private loadedKey = '';
  private poller: Poller | undefined;
  private flusher: NodeJS.Timeout | undefined;
  /** Uses since the last flush: token id -> [time in ms, address]. */
  private used = new Map<string, [number, string]>();

  constructor(
    private file: string,
    private readonly users: { findById(id: string): User | undefined },
    private readonly log: Log,
  ) {}

  get path(): string {
    return this.file;
  }

  /** At start: the file need not exist yet, but a path that cannot be a file is refused now. */
  load(): void {
    const stamp = fileStamp(this.file);
    if (!/^\d/.test(stamp) && stamp !== 'ENOENT') throw new TokensFileError(`could not read tokens file ${this.file}: ${stamp}`);
  }

  /** Reads the file the first time a token is looked up; a broken file is logged and refuses API tokens. */
  private ensure(): void {
    if (this.loaded) return;
    this.loaded = true;
    this.loadedKey = fileStamp(this.file);
    this.reload();
  }

  /** A config reload naming another file: loaded now when the old one was (an error keeps it). */
  switchTo(file: string): void {
    if (file === this.file) return;
    if (!this.loaded) {
      this.file = file;
      return;
    }
    const key = fileStamp(file);
    const tokens = readTokens(file);
    this.file = file;
    this.loadedKey = key;
    this.set(tokens);
  }

  watch(intervalMs = 1000): void {
    // Nothing read yet (no API token seen): nothing to keep fresh.
    this.poller = pollStamp(
      () => this.file,
      intervalMs,
      (key) => {
        if (key === this.loadedKey || !this.poller) return;
        this.loadedKey = key;
        this.reload();
      },
      () => !this.loaded,
    );
    this.flusher = setInterval(() => void this.flush(), LAST_USED_FLUSH_MS);
    this.flusher.unref();
  }

  async stop(): Promise<void> {
    this.poller?.stop();
    clearInterval(this.flusher);
    this.poller = undefined;
    await this.flush();
  }

  reload(): void {
    try {
      this.set(readTokens(this.file));
    } catch (err) {
      // The last good tokens stay; a revocation in a file we cannot read cannot be known.
      this.log.error(`${(err as Error).message}; keeping the last good tokens (${this.byHash.size})`);
    }
  }

  private set(tokens: StoredToken[]): void {
    this.byHash = new Map(
      tokens.map((t) => [t.sha256, { stored: t, expiresAtMs: t.expiresAt === null ? Infinity : Date.parse(t.expiresAt) }]),
    );
  }

  /** Changes the file under its lock and takes the result at once (not at the next poll). */
  async update<T>(change: (tokens: StoredToken[]) => { tokens: StoredToken[]; value: T }): Promise<T> {
    const value = await updateTokens(this.file, change);
    this.loaded = true;
    this.loadedKey = fileStamp(this.file);
    this.set(readTokens(this.file));
    return value;
  }

  all(): StoredToken[] {
    this.ensure();
    return [...this.byHash.values()].map((l) => this.withUse(l.stored));
  }

  private withUse(t: StoredToken): StoredToken {
    const use = this.used.get(t.id);
    return use ? { ...t, lastUsedAt: isoTime(use[0]), lastUsedFrom: use[1] } : t;
  }

  /** The hash a token text is looked up by; undefined for a text that cannot be a token. */
  static lookupKey(text: string): string | undefined {
    return TOKEN_TEXT.test(text) ? hashToken(text) : undefined;
  }

  /**
   * The principal of a token's hash now: its rights intersected with its user's current
   * ones, or the reason it is refused. Records the use (flushed to the file within 10 minutes).
   */
  principal(sha256: string, from: string): Principal | ApiTokenRefusal {
    this.ensure();
    const live = this.byHash.get(sha256) ?? (this.freshen() ? this.byHash.get(sha256) : undefined);
    if (!live) return 'invalid';
    if (live.expiresAtMs <= Date.now()) return 'expired';
    const t = live.stored;
    const user = this.users.findById(t.userId);
    if (!user) return 'revoked';
    const use = this.used.get(t.id);
    const now = Date.now();
    if (use) {
      use[0] = now;
      use[1] = from;
    } else this.used.set(t.id, [now, from]);
    if (live.principalOf !== user) {
      live.principal = tokenPrincipal(t, user);
      live.principalOf = user;
    }
    return live.principal!;
  }

  /**
   * An unknown hash may be a token the CLI made a moment ago, before the next poll: the
   * file is stat'ed (one syscall, only for unknown tokens) and read again when it changed,
   * so that a script can use a token at once after `device-agent token create`.
   */
  private freshen(): boolean {
    const key = fileStamp(this.file);
    if (key === this.loadedKey) return false;
    this.loadedKey = key;
    this.reload();
    return true;
  }

  /** Whether the token of this hash would still be accepted (an open event stream asks). */
  valid(sha256: string): boolean {
    this.ensure();
    const live = this.byHash.get(sha256);
    return !!live && live.expiresAtMs > Date.now() && !!this.users.findById(live.stored.userId);
  }

  expiresAtMs(sha256: string): number {
    return this.byHash.get(sha256)?.expiresAtMs ?? 0;
  }

  /** Writes lastUsedAt/lastUsedFrom of the tokens used since the last flush, under the lock. */
  async flush(): Promise<void> {
    if (this.used.size === 0) return;
    const used = this.used;
    this.used = new Map();
    try {
      await this.update((tokens) => {
        let changed = false;
        const next = tokens.map((t) => {
          const use = used.get(t.id);
          if (!use || (t.lastUsedAt !== null && Date.parse(t.lastUsedAt) >= use[0])) return t;
          changed = true;
          return { ...t, lastUsedAt: isoTime(use[0]), lastUsedFrom: use[1] };
        });
        return { tokens: changed ? next : tokens, value: undefined };
      });
    } catch (err) {
      this.log.error(`could not record token use in ${this.file}: ${(err as Error).message}`);
      for (const [id, use] of used) if (!this.used.has(id)) this.used.set(id, use);
    }
  }
}
