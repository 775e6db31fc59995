// A request's path through the agent, in one place (docs/behaviour.md, "A request's path").
// `request` counts the request (the outbox gives way to a busy API, src/util/give-way.ts),
// then meets these stages in this order; each is a named function here:
//   1. oneHost     a request naming its Host twice is answered 400 and not served (RFC 9112 §3.2)
//   2. inTurn      HTTP/1.1 answers in order: a request pipelined behind an answer still going
//                  out waits for its turn, and brakes the reading of its connection
//   3. the access log (src/http/log.ts): one line per request, whatever happens after
//   4. overTls     tls.plainHttp "redirect": plain HTTP gets 308 to https:// (src/http/redirect.ts)
//   5. dispatch    the route for the method and path (src/http/router.ts); none: 404 or 405
//   6. guard       the route's scope checked against the request's credential (src/auth/bearer.ts)
//   7. the route's handler
//   8. onError     a throw or rejection of 4-7 becomes `{"error": ...}` JSON; a refused credential
//                  or path is audited; a body left unread ends the connection, lingering (linger.ts)
// Before all of them Node parses the request, and src/http/server.ts defers its
// `100 Continue` to the body's first read (src/http/request.ts), so past the guard only.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate, type Credentials } from '../auth/bearer.ts';
import type { Audit } from '../audit/trail.ts';
import { settleSoon } from '../native/memory.ts';
import { requestBegun } from '../util/give-way.ts';
import { auditDenial, permits } from '../ops/invoke.ts';
import type { Log } from '../util/logger.ts';
import { ClientGone, Errors, HttpError } from './errors.ts';
import { lingerAfterAnswer } from './linger.ts';
import type { AccessLog } from './log.ts';
import { countPendingOutput } from './node-internals.ts';
import { redirectToHttps } from './redirect.ts';
import { clientOf, hasUnreadBody, isTls } from './request.ts';
import { sendJson } from './respond.ts';
import { Router } from './router.ts';
import type { Handler, Request, Route } from './types.ts';

/**
 * Requests one connection may have waiting behind the one being answered before the agent
 * stops reading it. HTTP/1.1 answers in order, so a request waiting for its turn gains
 * nothing by starting early; nginx likewise reads a pipelined request only once the one
 * before it is answered.
 */
export const MAX_QUEUED_REQUESTS = 4;

export interface PathDeps {
  routes: readonly Route[];
  accessLog: AccessLog;
  /** Bearer tokens: login tokens and API tokens. */
  credentials: Credentials;
  audit: Audit;
  /** Failures that must not reach the client (a 500's stack). */
  log: Log;
  /** tls.plainHttp "redirect": a plain-HTTP request is sent to https://. */
  redirectPlainHttp: boolean;
}

/** The server's request listener: every request takes this path. */
export function requestPath(deps: PathDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const onError = errorAnswer(deps);
  const router = new Router(deps.routes, (route) => guard(route, deps.credentials));
  const dispatch = (req: Request, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    req.path = q === -1 ? url : url.slice(0, q);
    req.search = q === -1 ? '' : url.slice(q);
    const found = router.find(req.method ?? '', req.path);
    if (!found) {
      const allowed = router.allowed(req.path);
      onError(allowed.length === 0 ? Errors.notFound() : Errors.methodNotAllowed(allowed.join(', ')), req, res, undefined);
      return;
    }
    req.params = found.params;
    req.route = found.route.path;
    try {
      const done = found.handler(req, res);
      if (done instanceof Promise) done.catch((err: unknown) => onError(err, req, res, found.route));
    } catch (err) {
      onError(err, req, res, found.route);
    }
  };
  const overTls = deps.redirectPlainHttp
    ? (req: Request, res: ServerResponse) => (isTls(req.socket) ? dispatch(req, res) : redirectToHttps(req, res))
    : dispatch;
  const serve = overTls as (req: IncomingMessage, res: ServerResponse) => void;
  const log = deps.accessLog;

  return function request(req: IncomingMessage, res: ServerResponse): void {
    requestBegun();
    if (!oneHost(req, res)) return;
    if (res.socket === req.socket) {
      log.around(req, res, serve);
      return;
    }
    inTurn(req, res);
    log.waiting(req, res); // after inTurn's 'socket' listener, before the one that serves: its bytes count from the turn
    res.once('socket', () => serve(req, res));
  };
}

/**
 * RFC 9112 §3.2: a request with more than one Host field is answered 400 (a proxy in front
 * and the agent could each take another one), and the connection closes, as Node closes it
 * after its own 400 for a missing Host. Node keeps the first Host and drops the rest, so
 * the raw headers are counted. No access-log line: the request never reached the agent.
 */
function oneHost(req: IncomingMessage, res: ServerResponse): boolean {
  const raw = req.rawHeaders;
  let seen = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') {
      if (seen) {
        res.shouldKeepAlive = false;
        sendJson(res, 400, { error: 'a request must have one Host header' });
        return false;
      }
      seen = true;
    }
  }
  return true;
}

/**
 * Brakes a connection that pipelines requests faster than they are answered. Its handler
 * runs only once its response owns the socket (`request` above), so a waiting download
 * opens no file and allocates no buffer, and a waiting event stream takes no slot (500
 * pipelined downloads on one unread connection held 1 GB when each started at once). Each
 * waiting request also counts as a share of the socket's high-water mark of pending
 * output, so with MAX_QUEUED_REQUESTS waiting Node stops reading the connection: the rest
 * stays in the kernel's socket buffer, and the client's own send buffer fills. What is
 * parsed already (at most the one read of up to 64 KiB in which the brake came) waits as
 * request objects only, and a closed connection drops them, each with its access-log line
 * (aborted).
 */
function inTurn(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket;
  const share = Math.ceil(socket.writableHighWaterMark / MAX_QUEUED_REQUESTS);
  countPendingOutput(res, share);
  res.once('socket', () => countPendingOutput(res, -share));
  // What its waiting requests took is collected and given back once it closes.
  if (socket.listeners('close').indexOf(settleSoon) === -1) socket.once('close', settleSoon);
}

/**
 * The credential check of a route with a scope, attached to the route (never to a path
 * prefix, so no spelling of a path that reaches the handler skips it). A route's own
 * credential (the metrics token) opens it with its principal; otherwise the bearer token's
 * principal must hold the scope. Not async: a promise layer per request would only cost;
 * dispatch turns a throw or a rejection into onError.
 */
function guard(route: Route, credentials: Credentials): Handler {
  const scope = route.scope;
  const handler = route.handler;
  if (scope === null) return handler;
  const login = route.loginSuffices === true;
  const own = route.credential;
  const permitted = (req: Request, res: ServerResponse) => {
    if (!permits(scope, login, req.user!)) throw Errors.insufficientScope(scope);
    return handler(req, res);
  };
  return (req, res) => {
    if (own) {
      const principal = own(req);
      if (principal) {
        req.user = principal;
        return handler(req, res);
      }
    }
    const pending = authenticate(credentials, req);
    return pending ? pending.then(() => permitted(req, res)) : permitted(req, res);
  };
}

/** The answer to a failed request: `{"error": ...}` with the status and headers of an HttpError, else 500. */
function errorAnswer(deps: PathDeps): (err: unknown, req: Request, res: ServerResponse, route: Route | undefined) => void {
  return (err, req, res, route) => {
    if (err instanceof ClientGone) {
      res.destroy(); // no answer, no error line: the access log says aborted
      return;
    }
    if (res.headersSent) {
      // Too late for a JSON answer: cut the connection so the client sees a failure.
      deps.log.error(`${req.method} ${req.path}: failed after headers were sent: ${String((err as Error)?.stack ?? err)}`);
      res.destroy();
      return;
    }
    let status = 500;
    let message = 'internal error';
    let headers: Record<string, string> = {};
    if (err instanceof HttpError) {
      ({ status, message, headers } = err);
      // A 401 for a credential that is present but bad, a 403 of scope or of path: who was
      // refused what, unless the route audits its own refusals (the login's `login` event).
      if ((status === 403 || (status === 401 && req.headers.authorization !== undefined)) && !route?.auditsOwnRefusals) {
        auditDenial(deps.audit, req.user, clientOf(req), req.asked ?? { path: req.path }, err);
      }
    } else {
      deps.log.error(`${req.method} ${req.path}: ${String((err as Error)?.stack ?? err)}`);
    }
    // A body left unread (too large, or refused before reading) is not read to its end:
    // the connection closes after the answer, lingering so that the client can read it.
    if (hasUnreadBody(req)) {
      headers = { ...headers, Connection: 'close' };
      lingerAfterAnswer(req);
    }
    sendJson(res, status, { error: message }, headers);
  };
}
