// createApp(): the route table and the request's path through it (src/http/pipeline.ts). Never listens.
import type { ServerResponse } from 'node:http';
import type { Captures } from './audio/captures.ts';
import type { LiveStreams } from './audio/live.ts';
import type { Recorder } from './audio/recorder.ts';
import { audioRoutes } from './audio/routes.ts';
import type { ApiTokenStore } from './auth/api-tokens.ts';
import { tokenRoutes } from './auth/token-routes.ts';
import type { Audit } from './audit/trail.ts';
import { loginRoutes } from './auth/login.ts';
import type { LoginLimiter } from './auth/limiter.ts';
import type { Gate } from './auth/passwords.ts';
import type { UserStore } from './auth/users.ts';
import { docsRoutes } from './apidocs/routes.ts';
import type { EventHub } from './events/hub.ts';
import { eventRoutes } from './events/routes.ts';
import type { Tokens } from './auth/tokens.ts';
import type { Config } from './config/config.ts';
import { fileRoutes } from './files/routes.ts';
import { accessLog } from './http/log.ts';
import { requestPath } from './http/pipeline.ts';
import type { AgentMetrics } from './metrics/agent.ts';
import { metricsRoutes } from './metrics/route.ts';
import { mqttRoutes } from './mqtt/routes.ts';
import type { MqttStatus } from './mqtt/status.ts';
import type { Request, Route } from './http/types.ts';
import { statusRoutes } from './status/routes.ts';
import { operationOf } from './ops/http.ts';
import { createOperations, type Operations } from './ops/invoke.ts';
import { uiRoutes } from './webui/routes.ts';
import { outboxRoutes } from './outbox/routes.ts';
import type { OutboxSlot } from './outbox/slot.ts';
import type { CertInfo } from './tls/cert.ts';
import { tlsRoutes } from './tls/routes.ts';
import { scheduleRoutes, type ScheduleRouteDeps } from './schedule/routes.ts';
import type { StatusSampler } from './status/sampler.ts';
import type { Log } from './util/logger.ts';

export interface AppDeps {
  users: UserStore;
  tokens: Tokens;
  apiTokens: ApiTokenStore;
  limiter: LoginLimiter;
  /** One password hash at a time (src/auth/passwords.ts). */
  gate: Gate;
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

/**
 * The route modules, in the table's order. Each takes one argument, the app's dependencies with
 * the config and the table itself, and reads the part its own type names; one whose feature is
 * off (metrics, a schedule service) gives no routes.
 */
const ROUTE_MODULES = [
  loginRoutes,
  statusRoutes,
  fileRoutes,
  docsRoutes,
  audioRoutes,
  eventRoutes,
  tokenRoutes,
  outboxRoutes,
  tlsRoutes,
  scheduleRoutes,
  mqttRoutes,
  uiRoutes,
  metricsRoutes,
];

export function createApp(config: Config, deps: AppDeps): App {
  const routes: Route[] = [];
  const all = { ...deps, config, table: () => routes };
  for (const module of ROUTE_MODULES) routes.push(...module(all));
  // Their duration series exist from the start, but only where counting is on.
  if (deps.metricsToken) deps.metrics.http.declare(routes.map((r) => r.path));

  const http = deps.metricsToken ? deps.metrics.http : undefined;
  const observe = http && ((req: Request, status: number, ms: number) => http.observe(req.route, req.method, status, ms));
  const declared = routes.flatMap((r) => operationOf(r) ?? []);
  const operations = createOperations(declared, deps);
  const handler = requestPath({
    routes,
    accessLog: accessLog(deps.log, config.tls !== null, observe),
    credentials: { tokens: deps.tokens, apiTokens: deps.apiTokens },
    audit: deps.audit,
    log: deps.log,
    redirectPlainHttp: config.tls?.plainHttp === 'redirect',
  });
  return { handler, routes, operations };
}
