// createApp(): the route table and the request's path through it (src/http/pipeline.ts). Never listens.
import type { ServerResponse } from 'node:http';
import type { Captures } from './audio/captures.ts';
import type { LiveStreams } from './audio/live.ts';
import type { Recorder } from './audio/recorder.ts';
import { audioRoutes } from './audio/routes.ts';
import type { ApiTokenStore } from './auth/api-tokens.ts';
import { tokenRoutes } from './auth/token-routes.ts';
import type { Audit } from './audit/trail.ts';
import { loginRoutes, type LoginDeps } from './auth/login.ts';
import { docsRoutes } from './apidocs/routes.ts';
import type { EventHub } from './events/hub.ts';
import { eventRoutes, validity } from './events/routes.ts';
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
import { statusOperations } from './status/routes.ts';
import { operationOf, toRoute } from './ops/http.ts';
import { createOperations, type Operations } from './ops/invoke.ts';
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
