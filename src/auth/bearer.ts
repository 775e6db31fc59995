// The bearer check attached to every protected route (not to a path prefix, so no
// spelling of a path that reaches the handler can skip it).
import { Errors } from '../http/errors.ts';
import type { Request } from '../http/types.ts';
import { TokenError, type Tokens } from './tokens.ts';

const BEARER = /^bearer ([A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*)$/i;

const refuse = (err: unknown): never => {
  if (err instanceof TokenError) throw Errors.unauthorized(err.message);
  throw err;
};

/**
 * Sets req.user or throws a 401 HttpError (or returns a promise of either, the first
 * time a token is verified). The token is never taken from the URL.
 */
export function authenticate(tokens: Tokens, req: Request): void | Promise<void> {
  const header = req.headers.authorization?.trim();
  if (!header) throw Errors.unauthorized('missing bearer token');
  const m = BEARER.exec(header);
  if (!m) throw Errors.unauthorized('malformed authorization header, expected: Bearer <token>');
  let user;
  try {
    user = tokens.verify(m[1]!);
  } catch (err) {
    return refuse(err);
  }
  if (user instanceof Promise) return user.then((u) => { req.user = u; }, refuse);
  req.user = user;
}
