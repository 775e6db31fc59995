// The agent's version: package.json's, inlined by the bundler.
import pkg from '../../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
