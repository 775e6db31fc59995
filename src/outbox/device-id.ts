// The device's name in object keys and collector paths: the config's `deviceId` (docs/outbox.md).
import type { Config } from '../config/config.ts';

export const deviceIdOf = (config: Config): string => config.deviceId;
