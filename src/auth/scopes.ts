// Roles, the scopes each one grants, and the credential a request carries once checked
// (docs/api.md, "Roles, scopes and API tokens").

/** The rights a credential carries; every protected route needs exactly one (docs/api.md, "Scopes"). */
export const SCOPES = ['status', 'files:read', 'files:write', 'audio', 'metrics', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const VIEWER: readonly Scope[] = ['status', 'files:read', 'metrics'];
const OPERATOR: readonly Scope[] = [...VIEWER, 'files:write', 'audio'];

export const ROLE_SCOPES: Record<Role, ReadonlySet<Scope>> = {
  viewer: new Set(VIEWER),
  operator: new Set(OPERATOR),
  admin: new Set(SCOPES),
};

export const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);
export const isScope = (value: unknown): value is Scope => (SCOPES as readonly unknown[]).includes(value);

/** The scopes in the document's order (stable output for answers and lists). */
export const sortScopes = (scopes: Iterable<Scope>): Scope[] => {
  const set = new Set(scopes);
  return SCOPES.filter((s) => set.has(s));
};

/** Who a request acts for, with what rights: set by the bearer check on protected routes. */
export interface Principal {
  /** The user's id ('' for the metrics token). */
  id: string;
  username: string;
  scopes: ReadonlySet<Scope>;
  /** A directory relative to the base that confines every file route; null: the whole base. */
  directory: string | null;
  /** How it authenticated, as the audit trail names it: `login`, `token:<name>` or `metrics`. */
  credential: string;
}

/**
 * The directory of a credential confined to nothing: a token whose directory and its
 * user's no longer nest (the user was moved after the token was made). No directory can
 * have this name, so every file route answers it as a path outside the credential's
 * directory, 403 `file path is not allowed` (src/files/confine.ts, realRoot and lexicalPath).
 */
export const NO_DIRECTORY = '\0';

/**
 * The narrower of two directory limits (both relative to the base, normalized, no
 * trailing slash). Two limits that do not nest leave nothing: `false`.
 */
export function narrowerDirectory(a: string | null, b: string | null): string | null | false {
  if (a === null) return b;
  if (b === null) return a;
  if (a === b || b.startsWith(`${a}/`)) return b;
  if (a.startsWith(`${b}/`)) return a;
  return false;
}
