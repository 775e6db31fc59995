// The users file: a file written before roles existed reads as admin (an upgrade changes
// no one's rights), and a role or directory that cannot be is refused naming the user.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readUsers, UsersFileError } from '../src/auth/users.ts';

const file = suite<{ dir: string; path: string }>('users file');
file.before.each((ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'da-users-'));
  ctx.path = join(ctx.dir, 'users.json');
});
file.after.each((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

const entry = { id: 'u1', username: 'old', hash: 'scrypt$x', sessionVersion: 's1' };

file('a user written before roles existed is admin with no directory', ({ path }) => {
  writeFileSync(path, JSON.stringify({ users: [entry] }));
  assert.equal(
    readUsers(path).map((u) => [u.username, u.role, u.directory]),
    [['old', 'admin', null]],
  );
});

file('role and directory are kept; a directory is stored in its one spelling', ({ path }) => {
  writeFileSync(path, JSON.stringify({ users: [{ ...entry, role: 'viewer', directory: './cams//front/' }] }));
  assert.equal(
    readUsers(path).map((u) => [u.role, u.directory]),
    [['viewer', 'cams/front']],
  );
});

file('an unknown role or a directory leaving the base is refused, naming the user', ({ path }) => {
  writeFileSync(path, JSON.stringify({ users: [{ ...entry, role: 'root' }] }));
  assert.throws(
    () => readUsers(path),
    (e: unknown) => e instanceof UsersFileError && /user old has an unknown role$/.test(e.message),
  );
  writeFileSync(path, JSON.stringify({ users: [{ ...entry, directory: '../etc' }] }));
  assert.throws(
    () => readUsers(path),
    (e: unknown) => e instanceof UsersFileError && /user old has an invalid directory$/.test(e.message),
  );
});

file.run();
