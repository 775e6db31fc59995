// The configured target, made from the config and its secret.
import { Collector } from './collector.ts';
import type { OutboxConfig } from './config.ts';
import { S3 } from './s3.ts';
import type { Target } from './target.ts';

export function makeTarget(config: OutboxConfig, secret: string, deviceId: string): Target {
  const t = config.target;
  return t.type === 's3' ? new S3(t, secret, deviceId) : new Collector(t, secret, deviceId);
}
