// GET/HEAD /api/download and POST /api/upload (spec 4.6, 4.7; CONTRACT §6), GET /api/v1/files/list (§11).
import type { Config } from '../config.ts';
import type { Log } from '../logger.ts';
import type { AgentMetrics } from '../metrics/agent.ts';
import type { Route } from '../http/types.ts';
import { downloadHandler } from './download.ts';
import { listHandler } from './list.ts';
import { uploadHandler } from './upload.ts';

export function fileRoutes(config: Config, log: Log, metrics: AgentMetrics): Route[] {
  return [
    { method: 'GET', path: '/api/download', auth: true, handler: downloadHandler(config, log, metrics.transfers.download) },
    { method: 'POST', path: '/api/upload', auth: true, handler: uploadHandler(config, metrics.transfers.upload) },
    { method: 'GET', path: '/api/v1/files/list', auth: true, handler: listHandler(config) },
  ];
}
