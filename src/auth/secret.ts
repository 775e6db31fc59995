// The HS256 signing secret (and the metrics scrape token, made the same way): created on
// first start, refused when weak or exposed.
import { replaceFile } from '../util/atomic.ts';
import { errnoName } from '../util/errno.ts';
import { crypto } from '../util/crypto.ts';
import { closeSync, fstatSync, openSync, readFileSync, constants as C } from 'node:fs';

export class SecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretError';
  }
}

const MIN_BYTES = 32;

function create(file: string, what: string): boolean {
  try {
    replaceFile(file, crypto().randomBytes(32).toString('hex') + '\n', { mode: 0o600, create: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false; // created by someone else meanwhile
    throw new SecretError(`could not create ${what} ${file}: ${errnoName(err)}`);
  }
  return true;
}

/**
 * Reads (or first creates: 32 random bytes as hex, mode 0600) the secret file and returns
 * its bytes, surrounding whitespace trimmed (Tokens makes the KeyObject on first use).
 * `what` names the file in errors.
 */
export function loadSecret(file: string, what = 'JWT secret file'): { secret: Buffer; created: boolean } {
  let created = false;
  let fd: number;
  try {
    fd = openSync(file, C.O_RDONLY | C.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new SecretError(`could not open ${what} ${file}: ${errnoName(err)}`);
    }
    created = create(file, what);
    fd = openSync(file, C.O_RDONLY | C.O_NOFOLLOW);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SecretError(`${what} ${file} is not a regular file`);
    if ((st.mode & 0o007) !== 0) {
      throw new SecretError(`${what} ${file} is accessible by others (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it`);
    }
    const text = readFileSync(fd, 'utf8').trim();
    if (text.length === 0) throw new SecretError(`${what} ${file} is empty`);
    if (Buffer.byteLength(text) < MIN_BYTES) {
      throw new SecretError(`${what} ${file} is shorter than ${MIN_BYTES} bytes`);
    }
    return { secret: Buffer.from(text, 'utf8'), created };
  } finally {
    closeSync(fd);
  }
}
