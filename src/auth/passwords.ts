// scrypt password hashes at OWASP's level, with a cap on concurrent hashing so a burst
// of logins cannot take a small device's memory (each hash needs 128 MiB).
import { crypto } from '../util/crypto.ts';

export interface ScryptParams {
  logN: number;
  r: number;
  p: number;
}

/** OWASP password storage cheat sheet: N=2^17, r=8, p=1. */
export const DEFAULT_PARAMS: ScryptParams = { logN: 17, r: 8, p: 1 };
const KEY_LEN = 32;
const SALT_LEN = 16;

function memoryFor({ logN, r, p }: ScryptParams): number {
  // scrypt needs 128 * N * r bytes, plus 128 * r * p for its B array; leave headroom.
  return 128 * 2 ** logN * r + 128 * r * p + 16 * 1024 * 1024;
}

/** A FIFO gate that lets at most `limit` tasks run at once and refuses past `maxWaiting`. */
export class Gate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number, private readonly maxWaiting: number) {}

  /** Runs `task` under the gate; resolves to undefined without running it when the queue is full. */
  async run<T>(task: () => Promise<T>): Promise<{ value: T } | undefined> {
    if (this.running >= this.limit) {
      if (this.waiting.length >= this.maxWaiting) return undefined;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return { value: await task() };
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    crypto().scrypt(
      password.normalize('NFC'),
      salt,
      KEY_LEN,
      { N: 2 ** params.logN, r: params.r, p: params.p, maxmem: memoryFor(params) },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

/** Encodes as `scrypt$logN$r$p$salt$hash` (base64url), so parameters can change per user. */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_PARAMS): Promise<string> {
  const salt = crypto().randomBytes(SALT_LEN);
  const key = await derive(password, salt, params);
  return ['scrypt', params.logN, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

interface Parsed {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

export function parseHash(encoded: string): Parsed | undefined {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![logN, r, p].every(Number.isInteger) || logN < 10 || logN > 22 || r < 1 || r > 32 || p < 1 || p > 16) {
    return undefined;
  }
  const salt = Buffer.from(parts[4] ?? '', 'base64url');
  const key = Buffer.from(parts[5] ?? '', 'base64url');
  if (salt.length < 8 || key.length !== KEY_LEN) return undefined;
  return { params: { logN, r, p }, salt, key };
}

/** Constant-time check of `password` against an encoded hash. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parseHash(encoded);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.params);
  return crypto().timingSafeEqual(key, parsed.key);
}

/**
 * The hash of a random password that was thrown away when this line was written:
 * verifying against it costs the same as a real user's, so an unknown username takes
 * as long as a wrong password and nobody can log in through it.
 */
export const DUMMY_HASH = 'scrypt$17$8$1$QmZpAA8FgdptuZp7HYrUEg$V1yAeG-NtVKV423jCx6fEH7gr8tsKQDVoHEGvelkA6s';
