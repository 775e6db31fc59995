// The credential check attached to every protected route (not to a path prefix, so no
// spelling of a path that reaches the handler can skip it): a login token (JWT) or an API
// token (`dat_...`), turned into the principal whose scopes the route's scope is checked
// against (src/http/pipeline.ts, guard).
import { Errors } from '../http/errors.ts';
import { clientOf } from '../http/request.ts';
import type { Request } from '../http/types.ts';
import { ApiTokenStore } from './api-tokens.ts';
import { ROLE_SCOPES, type Principal } from './scopes.ts';
import { TokenError, type Claims, type Tokens } from './tokens.ts';
import type { User } from './users.ts';

const BEARER = /^bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/i;
const BEARER_API = /^bearer (dat_\S*)$/i;

/**
 * The last Authorization header seen on a connection, the token taken from it and, once
 * verified, its claims (a JWT) or its hash (an API token). A keep-alive client sends the
 * same header on every request: when the new header equals the last one, the work of last
 * time is reused, which skips the regex and the token cache's lookup or the hash
 * (measured: ~700 of a status request's ~70,000 instructions). Expiry and revocation are
 * still checked on every request.
 */
const LAST = Symbol('last bearer');
interface Last {
  header: string;
  token: string;
  claims: Claims | undefined;
  apiHash: string | undefined;
}
type Memo = { [LAST]?: Last };

/** A login's principal, made once per user object (a users reload makes new ones). */
const loginPrincipals = new WeakMap<User, Principal>();

export function loginPrincipal(user: User): Principal {
  let p = loginPrincipals.get(user);
  if (!p) {
    p = { id: user.id, username: user.username, scopes: ROLE_SCOPES[user.role], directory: user.directory, credential: 'login' };
    loginPrincipals.set(user, p);
  }
  return p;
}

/** A token present but refused: the audit trail records it (the caller's hook). */
export type OnRefused = (req: Request, reason: string) => void;

const refuse = (err: unknown): never => {
  if (err instanceof TokenError) throw Errors.unauthorized(err.reason);
  throw err;
};

export interface Credentials {
  tokens: Tokens;
  apiTokens: ApiTokenStore;
}

/**
 * Sets req.user or throws a 401 HttpError (or returns a promise of either, the first
 * time a JWT is verified). The token is never taken from the URL.
 */
export function authenticate(creds: Credentials, req: Request): void | Promise<void> {
  const header = req.headers.authorization?.trim();
  if (!header) throw Errors.unauthorized('missing');
  const socket = req.socket as Memo;
  let last = socket[LAST];
  if (last?.header !== header) {
    const m = BEARER.exec(header);
    if (m) {
      last = { header, token: m[1]!, claims: undefined, apiHash: undefined };
    } else {
      const api = BEARER_API.exec(header);
      if (!api) throw Errors.unauthorized('malformed');
      const hash = ApiTokenStore.lookupKey(api[1]!);
      if (!hash) throw Errors.unauthorized('invalid');
      last = { header, token: '', claims: undefined, apiHash: hash };
    }
    socket[LAST] = last;
  }
  if (last.apiHash) {
    const p = creds.apiTokens.principal(last.apiHash, clientOf(req));
    if (typeof p === 'string') throw Errors.unauthorized(p);
    req.user = p;
    req.apiToken = last.apiHash;
    return;
  }
  const memo = last;
  try {
    let claims = memo.claims;
    if (!claims) {
      const verified = creds.tokens.claimsOf(memo.token);
      if (verified instanceof Promise) {
        return verified
          .then((c) => {
            memo.claims = c;
            req.user = loginPrincipal(creds.tokens.check(c));
            req.claims = c;
          })
          .catch(refuse);
      }
      claims = memo.claims = verified;
    }
    req.user = loginPrincipal(creds.tokens.check(claims));
    req.claims = claims;
  } catch (err) {
    refuse(err);
  }
}
