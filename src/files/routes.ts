// GET/HEAD /api/download and POST /api/upload (spec 4.6, 4.7; CONTRACT §6).
import type { Config } from '../config.ts';
import type { LogLine } from '../http/log.ts';
import type { AgentMetrics } from '../metrics/agent.ts';
import type { Route } from '../http/types.ts';
import { downloadHandler } from './download.ts';
import { uploadHandler } from './upload.ts';

export function fileRoutes(config: Config, logError: LogLine, metrics: AgentMetrics): Route[] {
  const counted = (d: 'download' | 'upload') => ({ bytes: metrics.transferBytes[d], files: metrics.files[d] });
  return [
    { method: 'GET', path: '/api/download', auth: true, handler: downloadHandler(config, logError, counted('download')) },
    { method: 'POST', path: '/api/upload', auth: true, handler: uploadHandler(config, counted('upload')) },
  ];
}
