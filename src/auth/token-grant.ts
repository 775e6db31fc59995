// What a new API token may have (docs/api.md, "API tokens"): the one rule for the API
// (src/auth/token-routes.ts) and the CLI (src/cli/tokens.ts). Its scopes and directory
// never exceed its owner's, nor the caller's: for another user too, an admin confined to
// a directory (by its token or its user) included.
import { narrowerDirectory, ROLE_SCOPES, type Scope, sortScopes } from './scopes.ts';
import type { User } from './users.ts';

/** What a caller holds: its scopes and directory. */
export interface Rights {
  scopes: ReadonlySet<Scope>;
  directory: string | null;
}

/** A token asked for more than its owner and caller both have: the scopes over, or the directory outside. */
export class TokenTooPowerful extends Error {
  constructor(
    readonly over: Scope[],
    readonly outside: { asked: string | null; limit: string | null } | null,
  ) {
    super('a token cannot have more rights than its user');
    this.name = 'TokenTooPowerful';
  }
}

/**
 * The token's scopes and directory: those asked for (default: all that owner and caller
 * both have), refused with TokenTooPowerful when they exceed that. `caller` null: the
 * device's own administrator (the CLI), limited by the owner only.
 */
export function grant(
  owner: Pick<User, 'role' | 'directory'>,
  caller: Rights | null,
  asked: { scopes?: readonly Scope[] | undefined; directory?: string | null | undefined },
): { scopes: Scope[]; directory: string | null } {
  const ownerScopes = ROLE_SCOPES[owner.role];
  const limit = caller ? new Set([...ownerScopes].filter((s) => caller.scopes.has(s))) : ownerScopes;
  const scopes = asked.scopes ? sortScopes(asked.scopes) : sortScopes(limit);
  const over = scopes.filter((s) => !limit.has(s));
  if (over.length > 0 || scopes.length === 0) throw new TokenTooPowerful(over, null);
  // Two directories that do not nest leave no directory a token could have.
  const dirLimit = caller ? narrowerDirectory(caller.directory, owner.directory) : owner.directory;
  if (dirLimit === false) throw new TokenTooPowerful([], { asked: asked.directory ?? null, limit: owner.directory });
  if (asked.directory === undefined) return { scopes, directory: dirLimit };
  if (narrowerDirectory(dirLimit, asked.directory) !== asked.directory) {
    throw new TokenTooPowerful([], { asked: asked.directory, limit: dirLimit });
  }
  return { scopes, directory: asked.directory };
}
