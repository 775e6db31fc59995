// JWT issue and verification: HS256 pinned, exp required, verified tokens cached until
// their exp, but every use re-checked against the current users (revocation).
import { TOKEN_REFUSALS, type TokenRefusal } from '../http/errors.ts';
import type Jwt from 'jsonwebtoken';
import type { KeyObject } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import { crypto } from '../util/crypto.ts';
import { lazy } from '../util/lazy.ts';
import { lruCache } from '../util/lru.ts';
import type { User } from './users.ts';

export interface Claims {
  sub: string;
  username: string;
  sv: string;
  exp: number;
}

/** Why a token was refused; the text goes to the client in a 401. */
/** A token refused, with the reason the 401 names (src/http/errors.ts, TOKEN_REFUSALS). */
export class TokenError extends Error {
  readonly reason: TokenRefusal;

  constructor(reason: TokenRefusal) {
    super(TOKEN_REFUSALS[reason]);
    this.name = 'TokenError';
    this.reason = reason;
  }
}

const MAX_TOKEN_LENGTH = 4096;
const CLOCK_SKEW_SECONDS = 60;

type JwtLib = typeof Jwt;

/**
 * jsonwebtoken, on the first login or token: its start-up (semver ranges compiled to check
 * the Node version) cost 13 ms of a ~100 ms start, and an idle agent needs none of it.
 * With lru-cache, whose cache holds what jsonwebtoken verified.
 */
const jwtModule = lazy('jsonwebtoken', () =>
  Promise.all([import('jsonwebtoken'), lruCache()]).then(([m]) => ((m as { default?: JwtLib }).default ?? m) as JwtLib),
);

export interface UserLookup {
  findById(id: string): User | undefined;
}

export class Tokens {
  // Sized for a device's clients; lru-cache allocates its arrays for `max` entries up front,
  // so the cache is made with the first verified token rather than at start-up (0.7 ms).
  // Until then it is undefined: no token has been verified, so none is cached.
  private lru: LRUCache<string, Claims> | undefined;

  /** Only once jsonwebtoken is loaded (jwtModule loads lru-cache with it). */
  private get cache(): LRUCache<string, Claims> {
    this.lru ??= new (lruCache.now()!.LRUCache)<string, Claims>({ max: 1_000 });
    return this.lru;
  }

  private keyObject: KeyObject | undefined;

  constructor(
    private readonly secret: Buffer,
    private ttlSeconds: number,
    private readonly users: UserLookup,
  ) {}

  /** A config reload: tokens issued from now on live this long; issued ones keep theirs. */
  setTtl(seconds: number): void {
    this.ttlSeconds = seconds;
  }

  /** HS256 key as a KeyObject (jsonwebtoken then skips trying a string as a public key). */
  private key(): KeyObject {
    this.keyObject ??= crypto().createSecretKey(this.secret);
    return this.keyObject;
  }

  async issue(user: User): Promise<string> {
    const jwt = await jwtModule();
    return jwt.sign({ username: user.username, sv: user.sessionVersion }, this.key(), {
      algorithm: 'HS256',
      expiresIn: this.ttlSeconds,
      subject: user.id,
    });
  }

  /**
   * The claims of a token whose signature verified (the cache, or jsonwebtoken), or a
   * TokenError with the reason. Not yet checked against the clock or the users: see
   * check(). Synchronous for a token seen before (the cache) or once jsonwebtoken is
   * loaded: the common case.
   */
  claimsOf(token: string): Claims | Promise<Claims> {
    const cached = this.lru?.get(token);
    if (cached) return cached;
    const jwt = jwtModule.now();
    if (jwt) return this.decode(jwt, token);
    return jwtModule().then((lib) => this.decode(lib, token));
  }

  /** The user of verified claims, checked now: not expired, user and session unchanged. */
  check(claims: Claims): User {
    if (claims.exp * 1000 <= Date.now()) throw new TokenError('expired');
    const user = this.users.findById(claims.sub);
    if (!user || user.sessionVersion !== claims.sv || user.username !== claims.username) {
      throw new TokenError('revoked');
    }
    return user;
  }

  private decode(jwt: JwtLib, token: string): Claims {
    if (token.length > MAX_TOKEN_LENGTH) throw new TokenError('invalid');
    let payload: Jwt.JwtPayload | string;
    try {
      payload = jwt.verify(token, this.key(), { algorithms: ['HS256'] });
    } catch (err) {
      if (err instanceof jwt.TokenExpiredError) throw new TokenError('expired');
      throw new TokenError('invalid');
    }
    // jsonwebtoken accepts a token without exp: this agent does not.
    if (
      typeof payload !== 'object' ||
      typeof payload.exp !== 'number' ||
      typeof payload.iat !== 'number' ||
      typeof payload.sub !== 'string' ||
      typeof payload.username !== 'string' ||
      typeof payload.sv !== 'string'
    ) {
      throw new TokenError('invalid');
    }
    if (payload.iat > Date.now() / 1000 + CLOCK_SKEW_SECONDS) throw new TokenError('invalid');
    const claims: Claims = { sub: payload.sub, username: payload.username, sv: payload.sv, exp: payload.exp };
    const ttl = claims.exp * 1000 - Date.now();
    if (ttl > 0) this.cache.set(token, claims, { ttl });
    return claims;
  }
}
