// node:crypto, loaded on first use rather than at start-up: loading it (ciphers, keys,
// argon2 on Node 24) cost ~6 ms of a ~55 ms start, and nothing before the first login or
// upload needs it (but a first start, which creates the JWT secret).
import { lazy } from './lazy.ts';

export const crypto = lazy('node:crypto', () => process.getBuiltinModule('node:crypto'));
