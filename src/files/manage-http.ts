// What the file operations (src/files/routes.ts) share: the path and fstype inputs, and
// the audit of a change.
import type { Audit, AuditEvent } from '../audit/trail.ts';
import { Errors, HttpError } from '../http/errors.ts';
import { checked, string } from '../ops/fields.ts';
import type { Context } from '../ops/operation.ts';
import { checkClientPath, checkFsType, MAX_PATH_BYTES } from './query.ts';

/** A JSON body of these routes: a few paths, never large. */
export const BODY_LIMIT = 16 * 1024;

/** A path from the client: a string, no NUL, at most PATH_MAX bytes. */
export const clientPath = (rule: string) =>
  checked(string({ rule }), checkClientPath, (name) => [
    Errors.badField(name, 'must not contain NUL'),
    Errors.badField(name, `must be at most ${MAX_PATH_BYTES} bytes`),
  ]);

/** The filesystem layer: only the native one (412 otherwise, as the contract says). No default: generators would make it required. */
export const fstype = () =>
  checked(
    string({ rule: 'must be a string' }),
    (v) => {
      checkFsType(v);
      return v;
    },
    () => [Errors.noFileSystem('<detail>')],
  ).about('filesystem layer; `OsFs` (the native filesystem), the only one, when absent', ['OsFs']);

type Event = Pick<AuditEvent, 'event' | 'path' | 'to'> & { recursive?: boolean };

/** Records the change: ok when it was made, failed when the agent could not make it (5xx). */
export async function audited(audit: Audit, ctx: Context, event: Event, change: () => Promise<void>): Promise<void> {
  const who = { user: ctx.principal?.username ?? null, credential: ctx.principal?.credential ?? 'none', client: ctx.client };
  try {
    await change();
  } catch (err) {
    // 403s are audited as `denied` where every refusal is (app.ts); 4xx are the client's mistakes.
    const status = err instanceof HttpError ? err.status : 500;
    if (status >= 500)
      audit.record({ ...event, ...who, outcome: 'failed', status, reason: err instanceof Error ? err.message : String(err) });
    throw err;
  }
  audit.record({ ...event, ...who, outcome: 'ok' });
}
