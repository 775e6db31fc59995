// POST /api/v1/agentusers/loginusertoagent: a password for a login token (a JWT).
import type { Audit } from '../audit/trail.ts';
import { json, ref } from '../apidocs/responses.ts';
import { Errors } from '../http/errors.ts';
import { readJsonObject } from '../http/json-body.ts';
import { sendJson } from '../http/respond.ts';
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
  loginCounts: { failures: Cell; throttled: Cell };
  audit: Audit;
  /** Where a failed re-hash of an older password hash is reported. */
  log: Log;
}

export function loginRoutes(deps: LoginDeps): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/agentusers/loginusertoagent',
      scope: null,
      handler: async (req, res) => {
        const body = await readJsonObject(req, LOGIN_BODY_LIMIT);
        const { username, password } = body;
        if (typeof username !== 'string') throw Errors.badField('username', 'is required and must be a string');
        if (typeof password !== 'string') throw Errors.badField('password', 'is required and must be a string');

        const address = req.socket.remoteAddress ?? '';
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
          deps.loginCounts.throttled.value++;
          audit('denied', 'throttled');
          throw Errors.tooManyLogins(wait);
        }

        const user = deps.users.findByName(username);
        // Unknown users are checked against a dummy hash: same work, same time.
        const result = await deps.gate.run(() => verifyPassword(password, user?.hash ?? DUMMY_HASH));
        if (!result) throw Errors.loginBusy();
        if (!result.value || !user) {
          deps.loginCounts.failures.value++;
          await deps.limiter.fail(address, username);
          audit('failed', 'invalid username or password');
          throw Errors.badCredentials();
        }
        await deps.limiter.succeed(address, username);
        audit('ok');
        sendJson(res, 200, {
          token: await deps.tokens.issue(user),
          user: {
            id: user.id,
            username: user.username,
            role: user.role,
            scopes: sortScopes(ROLE_SCOPES[user.role]),
            directory: user.directory,
          },
        });
        // An older setting's hash gets the current one, after the answer (it waits for the gate).
        void rehashOnLogin(user, password, deps);
      },
      doc: () => ({
        operation: {
          tags: ['auth'],
          operationId: 'login',
          summary: 'Obtain a bearer token',
          description:
            'After 10 failed logins within 15 minutes for one (address, username), ' +
            'the answer is 429 until the window passes, even for the right password.',
          requestBody: { required: true, content: json(ref('LoginRequest')) },
          responses: { 200: { description: 'logged in', content: json(ref('LoginResponse')) } },
        },
        errors: [
          Errors.bodyNotJson(),
          Errors.badField('username', 'is required and must be a string'),
          Errors.badField('password', 'is required and must be a string'),
          Errors.badCredentials(),
          Errors.bodyTooLarge(LOGIN_BODY_LIMIT),
          Errors.tooManyLogins(900),
          Errors.loginBusy(),
        ],
        notes: { 401: 'Wrong password or unknown user' },
      }),
    },
  ];
}
