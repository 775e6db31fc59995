// node:crypto, loaded on first use rather than at start-up: loading it (ciphers, keys,
// argon2 on Node 24) cost ~6 ms of a ~55 ms start, and nothing before the first login or
// upload needs it (but a first start, which creates the JWT secret).
type Crypto = typeof import('node:crypto');

let mod: Crypto | undefined;

export function crypto(): Crypto {
  mod ??= process.getBuiltinModule('node:crypto');
  return mod;
}
