// Password hashes a small device can afford: scrypt at OWASP's setting that needs 16 MiB
// (N=2^14, r=8, p=5), of the same strength as the N=2^17 (128 MiB a check) this agent
// used before; docs/decisions.md has the figures and why not Argon2id for new hashes.
// Each hash carries its parameters, so older hashes keep verifying and are replaced at
// the next successful login (needsRehash). Argon2id hashes (OWASP's first setting) are
// verified where the runtime has crypto.argon2 (Node 24). A gate caps concurrent
// hashing, so a burst of logins cannot take the device's memory.
import { crypto } from '../util/crypto.ts';
import { tuneAllocator } from '../native/memory.ts';

export interface ScryptParams {
  kind: 'scrypt';
  logN: number;
  r: number;
  p: number;
}

export interface Argon2Params {
  kind: 'argon2id';
  /** Memory in KiB. */
  m: number;
  /** Passes. */
  t: number;
  /** Lanes. */
  p: number;
}

export type HashParams = ScryptParams | Argon2Params;

/** OWASP password storage cheat sheet, scrypt at 16 MiB: N=2^14, r=8, p=5. */
export const SCRYPT_PARAMS: ScryptParams = { kind: 'scrypt', logN: 14, r: 8, p: 5 };
/** OWASP password storage cheat sheet, Argon2id's first setting: m=19 MiB, t=2, p=1. */
export const ARGON2_PARAMS: Argon2Params = { kind: 'argon2id', m: 19456, t: 2, p: 1 };
/** The setting of the hashes before: N=2^17, r=8 (128 MiB a check). Still verified, and replaced. */
export const OLD_SCRYPT_PARAMS: ScryptParams = { kind: 'scrypt', logN: 17, r: 8, p: 1 };

const KEY_LEN = 32;
const SALT_LEN = 16;

/** Whether this runtime has crypto.argon2 (Node 24.7 and later; Node 20 runs the sources too). */
export function argon2Available(): boolean {
  return typeof crypto().argon2 === 'function';
}

/**
 * The setting new hashes get: the same on every runtime, so that a users file means the
 * same to the executable and to the sources on Node 20, and an unknown user's check
 * (against DUMMY_HASH) costs what a real user's does.
 */
export function currentParams(): HashParams {
  return SCRYPT_PARAMS;
}

function scryptMemory({ logN, r, p }: ScryptParams): number {
  // scrypt needs 128 * N * r bytes, plus 128 * r * p for its B array; leave headroom.
  return 128 * 2 ** logN * r + 128 * r * p + 16 * 1024 * 1024;
}

/** A FIFO gate that lets at most `limit` tasks run at once and refuses past `maxWaiting`. */
export class Gate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    private readonly maxWaiting: number,
  ) {}

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

function derive(password: string, salt: Buffer, params: HashParams): Promise<Buffer> {
  const message = password.normalize('NFC');
  tuneAllocator(); // the hash's 16 MiB block is then mapped and unmapped, not kept in an arena
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, key: Buffer) => (err ? reject(err) : resolve(key));
    if (params.kind === 'scrypt') {
      crypto().scrypt(message, salt, KEY_LEN, { N: 2 ** params.logN, r: params.r, p: params.p, maxmem: scryptMemory(params) }, done);
    } else {
      crypto().argon2(
        'argon2id',
        { message, nonce: salt, parallelism: params.p, tagLength: KEY_LEN, memory: params.m, passes: params.t },
        done,
      );
    }
  });
}

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

/** Encodes the hash with its parameters, so the setting can change per user. */
function encode(params: HashParams, salt: Buffer, key: Buffer): string {
  return params.kind === 'scrypt'
    ? ['scrypt', params.logN, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$')
    : // The PHC string format, as the reference implementation and libsodium write it.
      `argon2id$v=19$m=${params.m},t=${params.t},p=${params.p}$${b64(salt)}$${b64(key)}`;
}

/**
 * `scrypt$logN$r$p$salt$hash` (base64url), or with Argon2id parameters (where the
 * runtime has it) `argon2id$v=19$m=M,t=T,p=P$salt$hash` (base64, no padding).
 */
export async function hashPassword(password: string, params: HashParams = currentParams()): Promise<string> {
  const salt = crypto().randomBytes(SALT_LEN);
  return encode(params, salt, await derive(password, salt, params));
}

interface Parsed {
  params: HashParams;
  salt: Buffer;
  key: Buffer;
}

const ARGON2 = /^argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

export function parseHash(encoded: string): Parsed | undefined {
  let params: HashParams;
  let salt: Buffer;
  let key: Buffer;
  if (encoded.startsWith('argon2id$')) {
    const m = ARGON2.exec(encoded);
    if (!m) return undefined;
    params = { kind: 'argon2id', m: Number(m[1]), t: Number(m[2]), p: Number(m[3]) };
    if (params.p < 1 || params.p > 16 || params.t < 1 || params.t > 16 || params.m < 8 * params.p || params.m > 2 ** 20) {
      return undefined;
    }
    salt = Buffer.from(m[4]!, 'base64');
    key = Buffer.from(m[5]!, 'base64');
  } else {
    const parts = encoded.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
    const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
    if (![logN, r, p].every(Number.isInteger) || logN < 10 || logN > 22 || r < 1 || r > 32 || p < 1 || p > 16) {
      return undefined;
    }
    params = { kind: 'scrypt', logN, r, p };
    salt = Buffer.from(parts[4] ?? '', 'base64url');
    key = Buffer.from(parts[5] ?? '', 'base64url');
  }
  if (salt.length < 8 || key.length !== KEY_LEN) return undefined;
  return { params, salt, key };
}

const same = (a: HashParams, b: HashParams) =>
  a.kind === 'scrypt' && b.kind === 'scrypt'
    ? a.logN === b.logN && a.r === b.r && a.p === b.p
    : a.kind === 'argon2id' && b.kind === 'argon2id'
      ? a.m === b.m && a.t === b.t && a.p === b.p
      : false;

/**
 * Whether a hash that just verified should be replaced: any setting but the two current
 * ones (an Argon2id hash and a 16 MiB scrypt one are of equal strength, so neither
 * replaces the other, whichever runtime made it).
 */
export function needsRehash(encoded: string): boolean {
  const parsed = parseHash(encoded);
  return !!parsed && !same(parsed.params, ARGON2_PARAMS) && !same(parsed.params, SCRYPT_PARAMS);
}

/**
 * Constant-time check of `password` against an encoded hash. An Argon2id hash on a
 * runtime without Argon2 (the sources on Node 20) cannot be checked and does not match.
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parseHash(encoded);
  if (!parsed || (parsed.params.kind === 'argon2id' && !argon2Available())) return false;
  const key = await derive(password, parsed.salt, parsed.params);
  return crypto().timingSafeEqual(key, parsed.key);
}

/**
 * The hash of a random password that was thrown away when this line was written, of the
 * current setting: verifying against it costs what a real user's check does, so an
 * unknown username takes as long as a wrong password and nobody can log in through it.
 */
export const DUMMY_HASH = 'scrypt$14$8$5$aUy-r8XHjbHXzYhyCNw9vQ$ZGgEtNRDasnZfIt4cOw5nh45U4_N7Dl6cK96sxN5KJY';
