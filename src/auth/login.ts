// POST /api/v1/agentusers/loginusertoagent
import { Errors } from '../http/errors.ts';
import { readJsonObject } from '../http/json-body.ts';
import { sendJson } from '../http/respond.ts';
import type { Route } from '../http/types.ts';
import type { Cell } from '../metrics/registry.ts';
import type { LoginLimiter } from './limiter.ts';
import type { Log } from '../logger.ts';
import { DUMMY_HASH, Gate, verifyPassword } from './passwords.ts';
import { rehashOnLogin } from './rehash.ts';
import type { Tokens } from './tokens.ts';
import type { UserStore } from './users.ts';

export const LOGIN_BODY_LIMIT = 16 * 1024;

export interface LoginDeps {
  users: UserStore;
  tokens: Tokens;
  limiter: LoginLimiter;
  /** One password hash at a time (~20 MB each); a few dozen may wait, the rest get 503. */
  gate: Gate;
  /** Refusals counted for /metrics: wrong credentials, and 429s of the limiter. */
  loginCounts: { failures: Cell; throttled: Cell };
  /** Where a failed re-hash of an older password hash is reported. */
  log: Log;
}

export function loginRoutes(deps: LoginDeps): Route[] {
  return [{
    method: 'POST',
    path: '/api/v1/agentusers/loginusertoagent',
    auth: false,
    handler: async (req, res) => {
      const body = await readJsonObject(req, LOGIN_BODY_LIMIT);
      const { username, password } = body;
      if (typeof username !== 'string') throw Errors.badField('username', 'is required and must be a string');
      if (typeof password !== 'string') throw Errors.badField('password', 'is required and must be a string');

      const address = req.socket.remoteAddress ?? '';
      const wait = await deps.limiter.retryAfter(address, username);
      if (wait > 0) {
        deps.loginCounts.throttled.value++;
        throw Errors.tooManyLogins(wait);
      }

      const user = deps.users.findByName(username);
      // Unknown users are checked against a dummy hash: same work, same time.
      const result = await deps.gate.run(() => verifyPassword(password, user?.hash ?? DUMMY_HASH));
      if (!result) throw Errors.loginBusy();
      if (!result.value || !user) {
        deps.loginCounts.failures.value++;
        await deps.limiter.fail(address, username);
        throw Errors.badCredentials();
      }
      await deps.limiter.succeed(address, username);
      sendJson(res, 200, { token: await deps.tokens.issue(user), user: { id: user.id, username: user.username } });
      // An older setting's hash gets the current one, after the answer (it waits for the gate).
      void rehashOnLogin(user, password, deps);
    },
  }];
}
