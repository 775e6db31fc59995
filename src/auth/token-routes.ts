// POST/GET /api/v1/tokens, DELETE /api/v1/tokens/:id and GET /api/v1/users (docs/api.md,
// "API tokens"). The token routes take a login token, or an API token with `admin`: a
// script's token cannot mint or list others unless it was made to administer.
import type { Audit } from '../audit/trail.ts';
import type { Config } from '../config/config.ts';
import { ref } from '../apidocs/responses.ts';
import { directoryInside } from '../files/scope-dir.ts';
import { Errors } from '../http/errors.ts';
import { checked, listOf, number, string } from '../ops/fields.ts';
import { toRoute } from '../ops/http.ts';
import { type Context, operation } from '../ops/operation.ts';
import type { Route } from '../http/types.ts';
import { addToken, ClockNotSet, publicRecord, TOKEN_NAME, TokenNameTaken, type ApiTokenStore } from './api-tokens.ts';
import { SCOPES } from './scopes.ts';
import { grant, TokenTooPowerful } from './token-grant.ts';
import { normalizeDirectory, type User, type UserStore } from './users.ts';

const BODY_LIMIT = 16 * 1024;
const DEFAULT_DAYS = 365;

export interface TokenRouteDeps {
  config: Config;
  users: UserStore;
  apiTokens: ApiTokenStore;
  audit: Audit;
}

const DIRECTORY_RULE = 'must be a path relative to the base directory, or null';

/** A token's fields, each refused with a 400 naming it (the CLI's options mean the same). */
export const TOKEN_FIELDS = {
  name: string({ pattern: TOKEN_NAME, rule: 'must be 1-64 of A-Z a-z 0-9 . _ @ -' }).need().about('unique per user'),
  scopes: listOf(SCOPES, { rule: `must be a non-empty array of: ${SCOPES.join(', ')}` }).about(
    "default: all that the caller and the token's user both have",
  ),
  directory: checked(
    string({ rule: DIRECTORY_RULE }),
    (v, name) => {
      if (normalizeDirectory(v) === undefined) throw Errors.badField(name, DIRECTORY_RULE);
      return v;
    },
    () => [],
  )
    .nullable()
    .about("relative to the base; default: the caller's (for another user: the narrower of both); null: the whole base"),
  expiresInDays: number({ integer: true, min: 1, max: 3650, rule: 'must be an integer from 1 to 3650, or null for no expiry' })
    .nullable()
    .or(DEFAULT_DAYS)
    .about('null: never'),
  username: string({ rule: 'must be a string' }).about('admin only: make the token for this user'),
};

export function tokenRoutes(deps: TokenRouteDeps): Route[] {
  const { config } = deps;
  const userOf = ({ principal }: Context): User => {
    const user = deps.users.findById(principal!.id);
    if (!user) throw Errors.unauthorized('revoked');
    return user;
  };
  const isAdmin = ({ principal }: Context) => principal!.scopes.has('admin');
  const audit = ({ principal, client }: Context, event: string, extra: Record<string, unknown>) =>
    deps.audit.record({ event, outcome: 'ok', user: principal!.username, credential: principal!.credential, client, ...extra });
  const extra = { 'x-credential': 'a login token, or an API token with scope `admin`' };
  return [
    operation({
      id: 'createToken',
      method: 'POST',
      path: '/api/v1/tokens',
      scope: 'admin',
      loginSuffices: true,
      tags: ['auth'],
      summary: 'Make an API token (its text is shown this once)',
      extra,
      description:
        'A long-lived credential for a script: `Authorization: Bearer dat_...`. Its rights are those asked ' +
        "for (default: the caller's), intersected at every request with its user's current ones. Only its SHA-256 is stored. " +
        "Its scopes and directory never exceed the caller's, nor its user's.",
      body: { fields: TOKEN_FIELDS, limit: BODY_LIMIT, what: 'a token' },
      answers: { 201: { description: 'made; `token` is its text, never shown again', schema: ref('NewToken') } },
      errors: () => [
        Errors.badField('directory', '<dir> is not a directory inside the base directory'),
        Errors.userNotFound('<name>'),
        Errors.tokenTooPowerful(),
        Errors.tokenNameTaken('<name>'),
        Errors.clockNotSet(),
      ],
      notes: { 400: 'A bad field; the text names it' },
      run: async ({ body }, ctx) => {
        const caller = ctx.principal!;
        let owner = userOf(ctx);
        if (body.username !== undefined && body.username !== owner.username) {
          if (!isAdmin(ctx)) throw Errors.tokenTooPowerful();
          const other = deps.users.findByName(body.username);
          if (!other) throw Errors.userNotFound(body.username);
          owner = other;
        }
        let granted;
        try {
          // `""` and "." are the whole base, as null.
          const directory = typeof body.directory === 'string' ? normalizeDirectory(body.directory) : body.directory;
          granted = grant(owner, caller, { scopes: body.scopes, directory });
        } catch (err) {
          if (err instanceof TokenTooPowerful) throw Errors.tokenTooPowerful();
          throw err;
        }
        const { scopes, directory } = granted;
        if (directory !== null && !directoryInside(config.baseDir, directory)) {
          throw Errors.badField('directory', `${directory} is not a directory inside the base directory`);
        }
        let made;
        try {
          made = await deps.apiTokens.update((tokens) =>
            addToken(tokens, { name: body.name, user: owner, scopes, directory, expiresInDays: body.expiresInDays }),
          );
        } catch (err) {
          if (err instanceof TokenNameTaken) throw Errors.tokenNameTaken(body.name);
          if (err instanceof ClockNotSet) throw Errors.clockNotSet();
          throw err;
        }
        audit(ctx, 'token.create', { name: made.record.name, for: owner.username, scopes: made.record.scopes });
        return { status: 201, body: { ...made.record, token: made.token } };
      },
    }),
    operation({
      id: 'listTokens',
      method: 'GET',
      path: '/api/v1/tokens',
      scope: 'admin',
      loginSuffices: true,
      tags: ['auth'],
      summary: "The caller's API tokens (with `admin`: everyone's)",
      extra,
      answers: { 200: { description: 'the tokens, never their text or hash', schema: ref('TokenList') } },
      run: (_input, ctx) => {
        const all = deps.apiTokens.all();
        const shown = isAdmin(ctx) ? all : all.filter((t) => t.userId === ctx.principal!.id);
        return { status: 200, body: { tokens: shown.map(publicRecord) } };
      },
    }),
    operation({
      id: 'revokeToken',
      method: 'DELETE',
      path: '/api/v1/tokens/:id',
      scope: 'admin',
      loginSuffices: true,
      tags: ['auth'],
      summary: 'Revoke an API token (refused within 2 s everywhere)',
      extra,
      answers: { 204: { description: 'revoked' } },
      errors: () => [Errors.tokenNotFound()],
      notes: { 404: "No such token, or another user's without `admin`" },
      run: async ({ params }, ctx) => {
        const id = params.id ?? '';
        const mine = isAdmin(ctx) ? () => true : (userId: string) => userId === ctx.principal!.id;
        const gone = await deps.apiTokens.update((tokens) => {
          const t = tokens.find((x) => x.id === id && mine(x.userId));
          return t ? { tokens: tokens.filter((x) => x !== t), value: t } : { tokens, value: undefined };
        });
        if (!gone) throw Errors.tokenNotFound();
        audit(ctx, 'token.revoke', { name: gone.name, for: gone.username });
        return { status: 204 };
      },
    }),
    operation({
      id: 'listUsers',
      method: 'GET',
      path: '/api/v1/users',
      scope: 'admin',
      tags: ['auth'],
      summary: 'The users, their roles and directories (changed by the CLI only)',
      answers: { 200: { description: 'the users', schema: ref('UserList') } },
      run: () => ({
        status: 200,
        body: { users: deps.users.all().map((u) => ({ id: u.id, username: u.username, role: u.role, directory: u.directory })) },
      }),
    }),
  ].map(toRoute);
}
