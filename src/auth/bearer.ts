// The bearer check attached to every protected route (not to a path prefix, so no
// spelling of a path that reaches the handler can skip it).
import { Errors } from '../http/errors.ts';
import type { Request } from '../http/types.ts';
import { TokenError, type Claims, type Tokens } from './tokens.ts';

const BEARER = /^bearer ([A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*)$/i;

/**
 * The last Authorization header seen on a connection, the token taken from it and, once
 * its signature verified, its claims. A keep-alive client sends the same header on every
 * request: when the new header equals the last one, the claims from last time are used,
 * which skips the regex and the token cache's lookup (measured: ~700 of a status
 * request's ~70,000 instructions). A token string's signature does not
 * change, so this is the token cache's own answer, kept per connection; the claims are
 * still checked (exp, revocation) on every request.
 */
const LAST = Symbol('last bearer');
interface Last { header: string; token: string; claims: Claims | undefined }
type Memo = { [LAST]?: Last };

const refuse = (err: unknown): never => {
  if (err instanceof TokenError) throw Errors.unauthorized(err.reason);
  throw err;
};

/**
 * Sets req.user or throws a 401 HttpError (or returns a promise of either, the first
 * time a token is verified). The token is never taken from the URL.
 */
export function authenticate(tokens: Tokens, req: Request): void | Promise<void> {
  const header = req.headers.authorization?.trim();
  if (!header) throw Errors.unauthorized('missing');
  const socket = req.socket as Memo;
  let last = socket[LAST];
  if (last?.header !== header) {
    const m = BEARER.exec(header);
    if (!m) throw Errors.unauthorized('malformed');
    last = { header, token: m[1]!, claims: undefined };
    socket[LAST] = last;
  }
  const memo = last;
  try {
    let claims = memo.claims;
    if (!claims) {
      const verified = tokens.claimsOf(memo.token);
      if (verified instanceof Promise) {
        return verified.then((c) => {
          memo.claims = c;
          req.user = tokens.check(c);
          req.claims = c;
        }).catch(refuse);
      }
      claims = memo.claims = verified;
    }
    req.user = tokens.check(claims);
    req.claims = claims;
  } catch (err) {
    refuse(err);
  }
}
