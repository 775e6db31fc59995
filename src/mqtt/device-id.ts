// The device's name in MQTT topics and the client id: config key `deviceId` (docs/behaviour.md#the-device-id).
import type { Config } from '../config/config.ts';

export const deviceIdOf = (config: Config): string => config.deviceId;
