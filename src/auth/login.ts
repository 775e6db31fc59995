// POST /api/v1/agentusers/loginusertoagent: a password for a login token (a JWT).
import type { Audit } from '../audit/trail.ts';
import { ref } from '../apidocs/responses.ts';
import { string } from '../ops/fields.ts';
import { toRoute } from '../ops/http.ts';
import { operation } from '../ops/operation.ts';
import { Errors } from '../http/errors.ts';
import type { Route } from '../http/types.ts';
import type { Cell } from '../metrics/registry.ts';
import type { LoginLimiter } from './limiter.ts';
import type { Log } from '../util/logger.ts';
import { DUMMY_HASH, type Gate, verifyPassword } from './passwords.ts';
import { rehashOnLogin } from './rehash.ts';
import { ROLE_SCOPES, sortScopes } from './scopes.ts';
import type { Tokens } from './tokens.ts';
import { validUsername, type UserStore } from './users.ts';

export const LOGIN_BODY_LIMIT = 16 * 1024;

export interface LoginDeps {
  users: UserStore;
  tokens: Tokens;
  limiter: LoginLimiter;
  /** One password hash at a time (~20 MB each); a few dozen may wait, the rest get 503. */
  gate: Gate;
  /** Refusals counted for /metrics: wrong credentials, and 429s of the limiter. */
  metrics: { loginFailures: Cell; loginThrottled: Cell };
  audit: Audit;
  /** Where a failed re-hash of an older password hash is reported. */
  log: Log;
}

const credential = (description: string, format?: string) =>
  string({ rule: 'is required and must be a string', format }).need().about(description);

export function loginRoutes(deps: LoginDeps): Route[] {
  const login = operation({
    id: 'login',
    method: 'POST',
    path: '/api/v1/agentusers/loginusertoagent',
    scope: null,
    auditsOwnRefusals: true,
    tags: ['auth'],
    summary: 'Obtain a bearer token',
    description:
      'After 10 failed logins within 15 minutes for one (address, username), ' +
      'the answer is 429 until the window passes, even for the right password.',
    body: {
      fields: { username: credential('agent user name'), password: credential('agent user password', 'password') },
      limit: LOGIN_BODY_LIMIT,
      what: 'a login',
    },
    answers: { 200: { description: 'logged in', schema: ref('LoginResponse') } },
    errors: () => [Errors.badCredentials(), Errors.tooManyLogins(900), Errors.loginBusy()],
    notes: { 401: 'Wrong password or unknown user' },
    run: async ({ body }, { client: address }) => {
      const { username, password } = body;
      // A name that cannot be a user's is neither kept nor logged: at most 64 safe characters are.
      const shown = validUsername(username) ? username : null;
      const audit = (outcome: 'ok' | 'failed' | 'denied', reason?: string) =>
        deps.audit.record({
          event: 'login',
          outcome,
          user: shown,
          credential: 'login',
          client: address,
          ...(reason ? { reason } : {}),
        });
      const wait = await deps.limiter.retryAfter(address, username);
      if (wait > 0) {
        deps.metrics.loginThrottled.value++;
        audit('denied', 'throttled');
        throw Errors.tooManyLogins(wait);
      }

      const user = deps.users.findByName(username);
      // Unknown users are checked against a dummy hash: same work, same time.
      const result = await deps.gate.run(() => verifyPassword(password, user?.hash ?? DUMMY_HASH));
      if (!result) throw Errors.loginBusy();
      if (!result.value || !user) {
        deps.metrics.loginFailures.value++;
        await deps.limiter.fail(address, username);
        audit('failed', 'invalid username or password');
        throw Errors.badCredentials();
      }
      await deps.limiter.succeed(address, username);
      audit('ok');
      const token = await deps.tokens.issue(user);
      // An older setting's hash gets the current one, after the answer (it waits for the gate).
      setImmediate(() => void rehashOnLogin(user, password, deps));
      return {
        status: 200,
        body: {
          token,
          user: {
            id: user.id,
            username: user.username,
            role: user.role,
            scopes: sortScopes(ROLE_SCOPES[user.role]),
            directory: user.directory,
          },
        },
      };
    },
  });
  return [toRoute(login)];
}
