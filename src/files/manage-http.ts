// The HTTP side of managing files: DELETE /api/v1/files, POST /api/v1/files/mkdir and
// /api/v1/files/move read and check their input, call manage.ts, answer and audit.
import type { Audit, AuditEvent } from '../audit/trail.ts';
import type { Config } from '../config/config.ts';
import { Errors, HttpError } from '../http/errors.ts';
import { readJsonObject } from '../http/json-body.ts';
import { sendJson } from '../http/respond.ts';
import type { Request, Response } from '../http/types.ts';
import { deletePath, makeDirectory, movePath, shownPath } from './manage.ts';
import { checkClientPath, checkFsType, parseQuery } from './query.ts';
import { confinementRoot } from './scope-dir.ts';

/** A JSON body of these routes: a few paths, never large. */
export const BODY_LIMIT = 16 * 1024;

function pathField(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string') throw Errors.badField(field, 'must be a string');
  return checkClientPath(value, field);
}

function fsTypeField(body: Record<string, unknown>): void {
  const value = body.fstype;
  if (value !== undefined && typeof value !== 'string') throw Errors.badField('fstype', 'must be a string');
  checkFsType(value as string | undefined);
}

type Event = Pick<AuditEvent, 'event' | 'path' | 'to'> & { recursive?: boolean };

/** Records the change: ok when it was made, failed when the agent could not make it (5xx). */
async function audited(audit: Audit, req: Request, event: Event, change: () => Promise<void>): Promise<void> {
  const who = { user: req.user?.username ?? null, credential: req.user?.credential ?? 'none', client: req.socket.remoteAddress ?? '' };
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

export function deleteHandler(config: Config, audit: Audit) {
  return async (req: Request, res: Response): Promise<void> => {
    const query = parseQuery(req.search);
    checkFsType(query.get('fstype'));
    const raw = query.get('path');
    if (raw === undefined) throw Errors.badField('path', 'is required');
    const path = checkClientPath(raw, 'path');
    req.asked = { path };
    const flag = query.get('recursive');
    if (flag !== undefined && flag !== 'true' && flag !== 'false') throw Errors.badField('recursive', 'must be true or false');
    const recursive = flag === 'true';
    const root = confinementRoot(config.baseDir, req);
    await audited(audit, req, { event: 'delete', path: shownPath(config.baseDir, path), ...(recursive ? { recursive } : {}) }, () =>
      deletePath(config.baseDir, path, recursive, root),
    );
    res.writeHead(204, { 'Cache-Control': 'no-store' });
    res.end();
  };
}

export function mkdirHandler(config: Config, audit: Audit) {
  return async (req: Request, res: Response): Promise<void> => {
    checkFsType(parseQuery(req.search).get('fstype'));
    const body = await readJsonObject(req, BODY_LIMIT);
    fsTypeField(body);
    const path = pathField(body, 'path');
    req.asked = { path };
    const shown = shownPath(config.baseDir, path);
    let made = false;
    await audited(audit, req, { event: 'mkdir', path: shown }, async () => {
      made = await makeDirectory(config.baseDir, path, confinementRoot(config.baseDir, req));
    });
    sendJson(res, made ? 201 : 200, { path: shown });
  };
}

export function moveHandler(config: Config, audit: Audit) {
  return async (req: Request, res: Response): Promise<void> => {
    checkFsType(parseQuery(req.search).get('fstype'));
    const body = await readJsonObject(req, BODY_LIMIT);
    fsTypeField(body);
    const from = pathField(body, 'from');
    const to = pathField(body, 'to');
    req.asked = { path: from, to };
    const overwrite = body.overwrite ?? false;
    if (typeof overwrite !== 'boolean') throw Errors.badField('overwrite', 'must be true or false');
    const shown = shownPath(config.baseDir, to);
    await audited(audit, req, { event: 'move', path: shownPath(config.baseDir, from), to: shown }, async () => {
      await movePath(config.baseDir, from, to, overwrite, confinementRoot(config.baseDir, req));
    });
    sendJson(res, 200, { path: shown });
  };
}
