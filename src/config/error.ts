// The error of a bad configuration, apart from the parser so that a feature's own key parser
// (src/mqtt/config.ts, src/outbox/config.ts) throws it without importing src/config/config.ts back (no cycle).

/** Exit status for a bad configuration (sysexits EX_CONFIG); the unit does not restart on it. */
export const EX_CONFIG = 78;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
