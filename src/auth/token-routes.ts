// POST/GET /api/v1/tokens, DELETE /api/v1/tokens/:id and GET /api/v1/users (docs/api.md,
// "API tokens"). The token routes take a login token, or an API token with `admin`: a
// script's token cannot mint or list others unless it was made to administer.
import type { Audit } from '../audit/trail.ts';
import type { Config } from '../config/config.ts';
import { json, ref } from '../apidocs/responses.ts';
import { directoryInside } from '../files/scope-dir.ts';
import { Errors } from '../http/errors.ts';
import { readJsonObject } from '../http/json-body.ts';
import { sendJson } from '../http/respond.ts';
import type { Request, Route, Scope } from '../http/types.ts';
import { addToken, ClockNotSet, publicRecord, TOKEN_NAME, TokenNameTaken, type ApiTokenStore } from './api-tokens.ts';
import { isScope, narrowerDirectory, ROLE_SCOPES, sortScopes } from './scopes.ts';
import { normalizeDirectory, type User, type UserStore } from './users.ts';

const BODY_LIMIT = 16 * 1024;
const DEFAULT_DAYS = 365;
const FIELDS = new Set(['name', 'scopes', 'directory', 'expiresInDays', 'username']);

export interface TokenRouteDeps {
  users: UserStore;
  apiTokens: ApiTokenStore;
  audit: Audit;
}

const SCOPE_LIST = 'status, files:read, files:write, audio, metrics, admin';

interface Asked {
  name: string;
  scopes: Scope[] | undefined;
  directory: string | null | undefined;
  days: number | null;
  username: string | undefined;
}

/** The body's fields, each refused with a 400 naming it. */
function parseBody(body: Record<string, unknown>): Asked {
  for (const key of Object.keys(body)) if (!FIELDS.has(key)) throw Errors.badField(key, 'is not a field of a token');
  const { name, scopes, directory, expiresInDays, username } = body;
  if (typeof name !== 'string' || !TOKEN_NAME.test(name)) throw Errors.badField('name', 'must be 1-64 of A-Z a-z 0-9 . _ @ -');
  if (scopes !== undefined && (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every(isScope))) {
    throw Errors.badField('scopes', `must be a non-empty array of: ${SCOPE_LIST}`);
  }
  let dir: string | null | undefined;
  if (directory !== undefined && directory !== null) {
    dir = typeof directory === 'string' ? normalizeDirectory(directory) : undefined;
    if (dir === undefined) throw Errors.badField('directory', 'must be a path relative to the base directory, or null');
  } else {
    dir = directory as null | undefined;
  }
  let days: number | null = DEFAULT_DAYS;
  if (expiresInDays === null) days = null;
  else if (expiresInDays !== undefined) {
    if (typeof expiresInDays !== 'number' || !Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > 3650) {
      throw Errors.badField('expiresInDays', 'must be an integer from 1 to 3650, or null for no expiry');
    }
    days = expiresInDays;
  }
  if (username !== undefined && typeof username !== 'string') throw Errors.badField('username', 'must be a string');
  return { name, scopes: scopes as Scope[] | undefined, directory: dir, days, username };
}

export function tokenRoutes(config: Config, deps: TokenRouteDeps): Route[] {
  const userOf = (req: Request): User => {
    const user = deps.users.findById(req.user!.id);
    if (!user) throw Errors.unauthorized('revoked');
    return user;
  };
  const isAdmin = (req: Request) => req.user!.scopes.has('admin');
  const audit = (req: Request, event: string, extra: Record<string, unknown>) =>
    deps.audit.record({
      event,
      outcome: 'ok',
      user: req.user!.username,
      credential: req.user!.credential,
      client: req.socket.remoteAddress ?? '',
      ...extra,
    });
  const tokenDoc = {
    'x-credential': 'a login token, or an API token with scope `admin`',
  };
  return [
    {
      method: 'POST',
      path: '/api/v1/tokens',
      scope: 'admin',
      loginSuffices: true,
      handler: async (req, res) => {
        const asked = parseBody(await readJsonObject(req, BODY_LIMIT));
        const caller = req.user!;
        let owner = userOf(req);
        if (asked.username !== undefined && asked.username !== owner.username) {
          if (!isAdmin(req)) throw Errors.tokenTooPowerful();
          const other = deps.users.findByName(asked.username);
          if (!other) throw Errors.userNotFound(asked.username);
          owner = other;
        }
        // What the token may have: its user's rights, and never more than the caller's.
        const ownerScopes = ROLE_SCOPES[owner.role];
        const limit = owner.id === caller.id ? caller.scopes : ownerScopes;
        const scopes = asked.scopes ?? sortScopes(limit);
        if (!scopes.every((s) => limit.has(s) && ownerScopes.has(s))) throw Errors.tokenTooPowerful();
        const ownerDir = owner.id === caller.id ? caller.directory : owner.directory;
        let directory: string | null = ownerDir;
        if (asked.directory !== undefined) {
          const narrowed = narrowerDirectory(ownerDir, asked.directory);
          if (narrowed === false || narrowed !== asked.directory) throw Errors.tokenTooPowerful();
          directory = asked.directory;
        }
        if (directory !== null && !directoryInside(config.baseDir, directory)) {
          throw Errors.badField('directory', `${directory} is not a directory inside the base directory`);
        }
        let made;
        try {
          made = await deps.apiTokens.update((tokens) =>
            addToken(tokens, {
              name: asked.name,
              user: owner,
              scopes,
              directory,
              expiresInDays: asked.days,
            }),
          );
        } catch (err) {
          if (err instanceof TokenNameTaken) throw Errors.tokenNameTaken(asked.name);
          if (err instanceof ClockNotSet) throw Errors.clockNotSet();
          throw err;
        }
        audit(req, 'token.create', { name: made.record.name, for: owner.username, scopes: made.record.scopes });
        sendJson(res, 201, { ...made.record, token: made.token });
      },
      doc: () => ({
        operation: {
          tags: ['auth'],
          operationId: 'createToken',
          summary: 'Make an API token (its text is shown this once)',
          ...tokenDoc,
          description:
            'A long-lived credential for a script: `Authorization: Bearer dat_...`. Its rights are those asked ' +
            "for (default: the caller's), intersected at every request with its user's current ones. Only its SHA-256 is stored.",
          requestBody: { required: true, content: json(ref('TokenRequest')) },
          responses: { 201: { description: 'made; `token` is its text, never shown again', content: json(ref('NewToken')) } },
        },
        errors: [
          Errors.bodyNotJson(),
          Errors.badField('<field>', '<rule>'),
          Errors.userNotFound('<name>'),
          Errors.tokenTooPowerful(),
          Errors.tokenNameTaken('<name>'),
          Errors.bodyTooLarge(BODY_LIMIT),
          Errors.clockNotSet(),
        ],
        notes: { 400: 'A bad field; the text names it' },
      }),
    },
    {
      method: 'GET',
      path: '/api/v1/tokens',
      scope: 'admin',
      loginSuffices: true,
      handler: (req, res) => {
        const all = deps.apiTokens.all();
        const shown = isAdmin(req) ? all : all.filter((t) => t.userId === req.user!.id);
        sendJson(res, 200, { tokens: shown.map(publicRecord) });
      },
      doc: () => ({
        operation: {
          tags: ['auth'],
          operationId: 'listTokens',
          summary: "The caller's API tokens (with `admin`: everyone's)",
          ...tokenDoc,
          responses: { 200: { description: 'the tokens, never their text or hash', content: json(ref('TokenList')) } },
        },
      }),
    },
    {
      method: 'DELETE',
      path: '/api/v1/tokens/:id',
      scope: 'admin',
      loginSuffices: true,
      handler: async (req, res) => {
        const id = req.params.id ?? '';
        const mine = isAdmin(req) ? () => true : (userId: string) => userId === req.user!.id;
        const gone = await deps.apiTokens.update((tokens) => {
          const t = tokens.find((x) => x.id === id && mine(x.userId));
          return t ? { tokens: tokens.filter((x) => x !== t), value: t } : { tokens, value: undefined };
        });
        if (!gone) throw Errors.tokenNotFound();
        audit(req, 'token.revoke', { name: gone.name, for: gone.username });
        res.writeHead(204, { 'Cache-Control': 'no-store' });
        res.end();
      },
      doc: () => ({
        operation: {
          tags: ['auth'],
          operationId: 'revokeToken',
          summary: 'Revoke an API token (refused within 2 s everywhere)',
          ...tokenDoc,
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 204: { description: 'revoked' } },
        },
        errors: [Errors.tokenNotFound()],
        notes: { 404: "No such token, or another user's without `admin`" },
      }),
    },
    {
      method: 'GET',
      path: '/api/v1/users',
      scope: 'admin',
      handler: (_req, res) => {
        sendJson(res, 200, {
          users: deps.users.all().map((u) => ({ id: u.id, username: u.username, role: u.role, directory: u.directory })),
        });
      },
      doc: () => ({
        operation: {
          tags: ['auth'],
          operationId: 'listUsers',
          summary: 'The users, their roles and directories (changed by the CLI only)',
          responses: { 200: { description: 'the users', content: json(ref('UserList')) } },
        },
      }),
    },
  ];
}
