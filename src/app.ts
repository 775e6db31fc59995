// createApp(): the routes, their auth, and the error and no-match answers. Never listens.
import polka from 'polka';
import { parse as parsePattern } from 'regexparam';
import type { ServerResponse } from 'node:http';
import type { Recorder } from './audio/recorder.ts';
import { audioRoutes } from './audio/routes.ts';
import { authenticate } from './auth/bearer.ts';
import { loginRoutes, type LoginDeps } from './auth/login.ts';
import { docsRoutes } from './docs/routes.ts';
import type { Tokens } from './auth/tokens.ts';
import type { Config } from './config.ts';
import { fileRoutes } from './files/routes.ts';
import { Errors, HttpError } from './http/errors.ts';
import { withAccessLog, type LogLine } from './http/log.ts';
import { lingerAfterAnswer } from './http/linger.ts';
import { NO_FIELDS } from './http/request.ts';
import { sendJson } from './http/respond.ts';
import type { Request, Route } from './http/types.ts';
import { statusRoutes } from './status/routes.ts';
import type { StatusSampler } from './status/sampler.ts';

export interface AppDeps extends LoginDeps {
  tokens: Tokens;
  sampler: StatusSampler;
  recorder: Recorder;
  /** Access-log lines (stdout in production). */
  log: LogLine;
  /** Error details that must not reach the client. */
  logError: LogLine;
}

export interface App {
  handler: (req: import('node:http').IncomingMessage, res: ServerResponse) => void;
  routes: readonly Route[];
}

function hasUnreadBody(req: Request): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function allRoutes(config: Config, deps: AppDeps): Route[] {
  return [
    ...loginRoutes(deps),
    ...statusRoutes(deps.sampler),
    ...fileRoutes(config, deps.logError),
    ...docsRoutes(),
    ...audioRoutes(deps.recorder, config.audio.maxDurationSeconds),
  ];
}

export function createApp(config: Config, deps: AppDeps): App {
  const routes = allRoutes(config, deps);
  const patterns = routes.map((r) => ({ method: r.method, pattern: parsePattern(r.path).pattern }));

  const onError = (err: unknown, req: Request, res: ServerResponse) => {
    if (res.headersSent) {
      // Too late for a JSON answer: cut the connection so the client sees a failure.
      deps.logError(`${req.method} ${req.path}: failed after headers were sent: ${String((err as Error)?.stack ?? err)}`);
      res.destroy();
      return;
    }
    let status = 500;
    let message = 'internal error';
    let headers: Record<string, string> = {};
    if (err instanceof HttpError) {
      ({ status, message, headers } = err);
    } else {
      deps.logError(`${req.method} ${req.path}: ${String((err as Error)?.stack ?? err)}`);
    }
    // A body left unread (too large, or refused before reading) is not read to its end:
    // the connection closes after the answer, lingering so that the client can read it.
    if (hasUnreadBody(req)) {
      headers = { ...headers, Connection: 'close' };
      lingerAfterAnswer(req);
    }
    sendJson(res, status, { error: message }, headers);
  };

  const onNoMatch = (req: Request, res: ServerResponse) => {
    const allowed = new Set<string>();
    for (const p of patterns) if (p.pattern.test(req.path)) allowed.add(p.method);
    if (allowed.has('GET')) allowed.add('HEAD');
    if (allowed.size === 0) return onError(Errors.notFound(), req, res);
    onError(Errors.methodNotAllowed([...allowed].sort().join(', ')), req, res);
  };

  const app = polka<Request>({ onError, onNoMatch });
  const exact = new Map<string, (req: Request, res: ServerResponse) => unknown>();
  for (const route of routes) {
    // Not async: polka runs each handler inside its own async loop, which turns a throw
    // into a rejection for onError; another promise layer per request would only cost.
    const handler = route.auth
      ? (req: Request, res: ServerResponse) => {
        const pending = authenticate(deps.tokens, req);
        return pending ? pending.then(() => route.handler(req, res)) : route.handler(req, res);
      }
      : route.handler;
    app.add(route.method, route.path, handler);
    if (!route.path.includes(':')) {
      exact.set(`${route.method} ${route.path.toLowerCase()}`, handler);
      if (route.method === 'GET') exact.set(`HEAD ${route.path.toLowerCase()}`, handler);
    }
  }
  const viaPolka = app.handler.bind(app) as App['handler'];
  const printable = /^[\x21-\x7e]*$/;

  /**
   * Routes without parameters are looked up in a Map, with polka's own matching rules
   * (ASCII case-insensitive, one optional trailing slash); everything else (parameters,
   * 404, 405) goes through polka. Measured: polka's route scan and async handler loop
   * were a third of the time of an authenticated status request.
   */
  const dispatch = (req: Request, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q === -1 ? url : url.slice(0, q);
    let path = rawPath;
    if (path.length > 1 && path.charCodeAt(path.length - 1) === 0x2f) path = path.slice(0, -1);
    // A path spelled as registered (lower case) is found at once; any other spelling only
    // after the printable check and lower-casing.
    const handler = exact.get(`${req.method} ${path}`) ??
      (printable.test(path) ? exact.get(`${req.method} ${path.toLowerCase()}`) : undefined);
    if (!handler) return viaPolka(req, res);
    req.path = rawPath;
    req.search = q === -1 ? '' : url.slice(q);
    // No parameters, and no handler reads req.query (they parse req.search).
    req.query = NO_FIELDS;
    req.params = NO_FIELDS;
    try {
      const done = handler(req, res);
      if (done instanceof Promise) done.catch((err: unknown) => onError(err, req, res));
    } catch (err) {
      onError(err, req, res);
    }
  };
  // The log line takes req.url before anything rewrites it.
  return { handler: withAccessLog(deps.log, dispatch as App['handler']), routes };
}
