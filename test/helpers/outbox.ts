// An agent with the outbox on against a test store (test/helpers/s3.ts), and its state.
import { createHash } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { bearer } from './http.ts';
import { makeDir, prepareDir, startAgent, type TestAgent } from './agent.ts';
import { until } from './proc.ts';
import { ACCESS_KEY, BUCKET, SECRET, type Store } from './s3.ts';

export const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

export function outboxConfig(store: Store, dir: string, extra: Record<string, unknown> = {}, secret = SECRET) {
  writeFileSync(join(dir, 's3.secret'), `${secret}\n`, { mode: 0o600 });
  return {
    target: {
      type: 's3',
      endpoint: store.endpoint,
      region: 'us-east-1',
      bucket: BUCKET,
      prefix: 'dev-1/',
      accessKeyId: ACCESS_KEY,
      secretAccessKeyFile: 's3.secret',
    },
    maxBackoffSeconds: 4,
    ...extra,
  };
}

export type OutboxState = Record<string, unknown> & { state: string; pending: { files: number }; uploaded: { files: number } };

export async function outboxState(agent: TestAgent, token: string): Promise<OutboxState> {
  const res = await fetch(`${agent.url}/api/v1/outbox`, { headers: bearer(token) });
  assert.is(res.status, 200);
  return (await res.json()) as OutboxState;
}

/** The outbox's state (GET /api/v1/outbox, polled) once `holds` is true of it. */
export function stateWhen(
  agent: TestAgent,
  token: string,
  what: string,
  holds: (s: OutboxState) => boolean,
  ms = 60_000,
): Promise<OutboxState> {
  return until(
    what,
    async () => {
      const s = await outboxState(agent, token);
      return holds(s) && s;
    },
    ms,
  );
}

/** Writes files under `dir`/files (baseDir), last changed a minute ago: complete for the start's scan (older than 10 s). */
export function writeSettled(dir: string, files: Record<string, Buffer>): void {
  const old = new Date(Date.now() - 60_000);
  for (const [rel, data] of Object.entries(files)) {
    const abs = join(dir, 'files', rel);
    mkdirSync(join(abs, '..'), { recursive: true });
    writeFileSync(abs, data);
    utimesSync(abs, old, old);
  }
}

/** An agent whose files exist before it starts (found by the start's scan: older than 10 s). */
export async function agentWith(
  store: Store,
  files: Record<string, Buffer>,
  extra: Record<string, unknown> = {},
  secret = SECRET,
  opts: { dir?: string; env?: Record<string, string>; config?: Record<string, unknown> } = {},
): Promise<TestAgent> {
  const dir = opts.dir ?? makeDir();
  writeSettled(dir, files);
  const config = { ...opts.config, outbox: outboxConfig(store, dir, extra, secret) };
  await prepareDir({ dir, config });
  return startAgent({ dir, config, env: opts.env });
}
