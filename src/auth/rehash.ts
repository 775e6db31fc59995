// A successful login whose hash has an older setting (scrypt N=2^17: 128 MiB a check)
// gets a hash of the current one, written into the users file the same way the CLI
// writes it (under its lock, temp file, fsync, rename: src/auth/users.ts, updateUsers),
// then the store reads it again.
import type { Log } from '../util/logger.ts';
import type { Gate } from './passwords.ts';
import { hashPassword, needsRehash } from './passwords.ts';
import { updateUsers, type User, type UserStore } from './users.ts';

/**
 * Re-hashes `password` for `user` when its hash needs it. Runs under the login gate (a
 * hash at a time); a full gate skips it (the next login tries again). The file is read
 * again under its lock and only that user's entry changes, and only when it still holds
 * the hash that verified: a password changed by the CLI meanwhile stays.
 * Resolves true when the file was rewritten; never throws (the login has succeeded).
 */
export async function rehashOnLogin(user: User, password: string, deps: { users: UserStore; gate: Gate; log: Log }): Promise<boolean> {
  if (!needsRehash(user.hash)) return false;
  try {
    const result = await deps.gate.run(() => hashPassword(password));
    if (!result) return false;
    const written = await updateUsers(deps.users.path, (users) => {
      const entry = users.find((u) => u.id === user.id && u.hash === user.hash);
      if (!entry) return { users, value: false };
      entry.hash = result.value;
      return { users: [...users], value: true };
    });
    if (written) deps.users.reload();
    return written;
  } catch (err) {
    deps.log.warn(`could not store the new password hash of ${user.username}: ${(err as Error).message}`);
    return false;
  }
}
