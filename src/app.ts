// createApp(): the routes, their auth, and the error and no-match answers. Never listens.
import type { ServerResponse } from 'node:http';
import type { Captures } from './audio/captures.ts';
import type { LiveStreams } from './audio/live.ts';
import type { Recorder } from './audio/recorder.ts';
import { audioRoutes } from './audio/routes.ts';
import type { ApiTokenStore } from './auth/api-tokens.ts';
import { authenticate, type Credentials } from './auth/bearer.ts';
import type { Principal } from './auth/scopes.ts';
import { tokenRoutes } from './auth/token-routes.ts';
import type { Audit } from './audit/trail.ts';
import { loginRoutes, type LoginDeps } from './auth/login.ts';
import { docsRoutes } from './apidocs/routes.ts';
import type { EventHub } from './events/hub.ts';
import { eventRoutes, validity } from './events/routes.ts';
import type { Tokens } from './auth/tokens.ts';
import type { Config } from './config/config.ts';
import { fileRoutes } from './files/routes.ts';
import { ClientGone, Errors, HttpError } from './http/errors.ts';
import { withAccessLog } from './http/log.ts';
import { lingerAfterAnswer } from './http/linger.ts';
import type { AgentMetrics } from './metrics/agent.ts';
import { metricsRoutes } from './metrics/route.ts';
import { clientOf, hasUnreadBody } from './http/request.ts';
import { mqttRoutes } from './mqtt/routes.ts';
import type { MqttStatus } from './mqtt/status.ts';
import { sendJson } from './http/respond.ts';
import { Router } from './http/router.ts';
import type { Request, Route } from './http/types.ts';
import { isTls, redirectToHttps } from './http/redirect.ts';
import { statusOperations } from './status/routes.ts';
import { operationOf, toRoute } from './ops/http.ts';
import { auditDenial, createOperations, type Operations, permits } from './ops/invoke.ts';
import { uiRoutes } from './webui/routes.ts';
import { outboxOperations } from './outbox/routes.ts';
import type { OutboxSlot } from './outbox/slot.ts';
import type { CertInfo } from './tls/cert.ts';
import { tlsRoutes } from './tls/routes.ts';
import { scheduleRoutes, type ScheduleRouteDeps } from './schedule/routes.ts';
import type { StatusSampler } from './status/sampler.ts';
import type { Log } from './util/logger.ts';

export interface AppDeps extends Omit<LoginDeps, 'loginCounts'> {
  tokens: Tokens;
  apiTokens: ApiTokenStore;
  audit: Audit;
  sampler: StatusSampler;
  recorder: Recorder;
  /** The disk guard's check before a recording starts (src/audio/disk-guard.ts). */
  admitRecording?: () => void;
  captures: Captures;
  live: LiveStreams;
  events: EventHub;
  /** Access-log lines, and error details that must not reach the client (stdout in production). */
  log: Log;
  /** The certificate in service, with TLS on. */
  tlsInfo?: () => CertInfo;
  metrics: AgentMetrics;
  /** The metrics scrape token; undefined when metrics are off (no /metrics, no request counting). */
  metricsToken: Buffer | undefined;
  /** /api/v1/schedule (docs/schedule.md): the service, made on first use. */
  schedule?: ScheduleRouteDeps;
  /** A manual start in another format than the capture the schedule records from: the 409's text, else null. */
  captureConflict?: (device: string, rate: number, channels: number) => string | null;
  /** The outbox: off, or on (docs/outbox.md). */
  outbox?: OutboxSlot;
  /** The MQTT link's state; undefined with the link off. */
  mqttStatus?: () => MqttStatus | undefined;
}

export interface App {
  handler: (req: import('node:http').IncomingMessage, res: ServerResponse) => void;
  routes: readonly Route[];
  /** The declared operations, callable without HTTP (src/ops/invoke.ts): the MQTT link's way in. */
  operations: Operations;
}

/** The metrics token's principal: `metrics` and nothing else. */
const METRICS_PRINCIPAL: Principal = { id: '', username: '', scopes: new Set(['metrics']), directory: null, credential: 'metrics' };

function allRoutes(config: Config, deps: AppDeps, table: () => readonly Route[]): Route[] {
  return [
    ...loginRoutes({ ...deps, loginCounts: { failures: deps.metrics.loginFailures, throttled: deps.metrics.loginThrottled } }),
    ...statusOperations(deps.sampler).map(toRoute),
    ...fileRoutes(config, deps.log, deps.metrics, deps.audit, (abs) => deps.outbox?.uploadedOf(abs)),
    ...docsRoutes(table, deps.tlsInfo),
    ...audioRoutes(
      { ...deps, owner: (req) => validity(req, deps) },
      { maxDurationSeconds: config.audio.maxDurationSeconds, maxFileBytes: config.maxFileBytes },
    ),
    ...eventRoutes(deps.events, deps),
    ...tokenRoutes(config, deps),
    ...outboxOperations(deps.outbox).map(toRoute),
    ...tlsRoutes(deps.tlsInfo, config.tls?.clientCaFile ? 'required' : 'none'),
    ...(deps.schedule ? scheduleRoutes(deps.schedule) : []),
    ...mqttRoutes(deps.mqttStatus ?? (() => undefined)),
    ...uiRoutes(),
    ...(deps.metricsToken ? metricsRoutes(deps.metrics, deps.metricsToken) : []),
  ];
}

export function createApp(config: Config, deps: AppDeps): App {
  const routes: Route[] = allRoutes(config, deps, () => routes);
  // Their duration series exist from the start, but only where counting is on.
  if (deps.metricsToken) deps.metrics.http.declare(routes.map((r) => r.path));

  const onError = (err: unknown, req: Request, res: ServerResponse) => {
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
      if (status === 403 || (status === 401 && req.headers.authorization !== undefined)) auditRefusal(req, err);
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

  // A 401 for a credential that is present but bad, a 403 of scope or of path: who was
  // refused what (a refusal of the login route itself is its own event, `login`).
  const auditRefusal = (req: Request, err: HttpError) => {
    if (req.route === '/api/v1/agentusers/loginusertoagent') return;
    auditDenial(deps.audit, req.user, clientOf(req), req.asked ?? { path: req.path }, err);
  };

  const creds: Credentials = { tokens: deps.tokens, apiTokens: deps.apiTokens };
  // Each route's scope is checked where its credential is: per route, never by path prefix.
  const router = new Router(routes, (route) => {
    const scope = route.scope;
    if (scope === null) return route.handler;
    const login = route.loginSuffices === true;
    const permitted = (req: Request, res: ServerResponse) => {
      if (!permits(scope, login, req.user!)) throw Errors.insufficientScope(scope);
      return route.handler(req, res);
    };
    // Not async: a promise layer per request would only cost; dispatch() turns a throw
    // or a rejection into onError.
    return (req, res) => {
      if (route.credential?.(req)) {
        req.user = METRICS_PRINCIPAL;
        return route.handler(req, res);
      }
      const pending = authenticate(creds, req);
      return pending ? pending.then(() => permitted(req, res)) : permitted(req, res);
    };
  });

  const dispatch = (req: Request, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    req.path = q === -1 ? url : url.slice(0, q);
    req.search = q === -1 ? '' : url.slice(q);
    const found = router.find(req.method ?? '', req.path);
    if (!found) {
      const allowed = router.allowed(req.path);
      onError(allowed.length === 0 ? Errors.notFound() : Errors.methodNotAllowed(allowed.join(', ')), req, res);
      return;
    }
    req.params = found.params;
    req.route = found.route.path;
    try {
      const done = found.handler(req, res);
      if (done instanceof Promise) done.catch((err: unknown) => onError(err, req, res));
    } catch (err) {
      onError(err, req, res);
    }
  };
  const serve =
    config.tls?.plainHttp === 'redirect'
      ? (req: Request, res: ServerResponse) => (isTls(req.socket) ? dispatch(req, res) : redirectToHttps(req, res))
      : dispatch;
  const http = deps.metricsToken ? deps.metrics.http : undefined;
  const observe = http && ((req: Request, status: number, ms: number) => http.observe(req.route, req.method, status, ms));
  const declared = routes.flatMap((r) => operationOf(r) ?? []);
  const operations = createOperations(declared, deps);
  return { handler: withAccessLog(deps.log, serve as App['handler'], config.tls !== null, observe), routes, operations };
}
