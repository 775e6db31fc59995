// The configured target, made from the config and its secret.
import type { OutboxConfig } from './config.ts';
import { S3 } from './s3.ts';
import { type Target, TargetError } from './target.ts';

export function makeTarget(config: OutboxConfig, secret: string, deviceId: string): Target {
  const t = config.target;
  if (t.type === 's3') return new S3(t, secret, deviceId);
  return {
    ship: () => Promise.reject(new TargetError(`target type "${t.type}" is not supported by this build`)),
  };
}
