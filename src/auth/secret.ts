// The HS256 signing secret: created on first start, refused when weak or exposed.
import { replaceFile } from '../atomic.ts';
import { errnoName } from '../errno.ts';
import { crypto } from '../crypto.ts';
import { closeSync, fstatSync, openSync, readFileSync, constants as C } from 'node:fs';

export class SecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretError';
  }
}

const MIN_BYTES = 32;

function create(file: string): boolean {
  try {
    replaceFile(file, crypto().randomBytes(32).toString('hex') + '\n', { mode: 0o600, create: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false; // created by someone else meanwhile
    throw new SecretError(`could not create JWT secret file ${file}: ${errnoName(err)}`);
  }
  return true;
}

/** Reads (or first creates) the secret file and returns its bytes (Tokens makes the KeyObject on first use). */
export function loadSecret(file: string): { secret: Buffer; created: boolean } {
  let created = false;
  let fd: number;
  try {
    fd = openSync(file, C.O_RDONLY | C.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new SecretError(`could not open JWT secret file ${file}: ${errnoName(err)}`);
    }
    created = create(file);
    fd = openSync(file, C.O_RDONLY | C.O_NOFOLLOW);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SecretError(`JWT secret file ${file} is not a regular file`);
    if ((st.mode & 0o007) !== 0) {
      throw new SecretError(`JWT secret file ${file} is accessible by others (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it`);
    }
    const text = readFileSync(fd, 'utf8').trim();
    if (text.length === 0) throw new SecretError(`JWT secret file ${file} is empty`);
    if (Buffer.byteLength(text) < MIN_BYTES) {
      throw new SecretError(`JWT secret file ${file} is shorter than ${MIN_BYTES} bytes`);
    }
    return { secret: Buffer.from(text, 'utf8'), created };
  } finally {
    closeSync(fd);
  }
}
