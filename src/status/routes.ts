// GET /api/v1/devicestatus/get and GET /api/v1/health
import { sendJson, sendJsonBytes } from '../http/respond.ts';
import type { Route } from '../http/types.ts';
import { VERSION } from '../version.ts';
import type { StatusSampler } from './sampler.ts';

export function statusRoutes(sampler: StatusSampler): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/devicestatus/get',
      auth: true,
      handler: async (_req, res) => sendJsonBytes(res, 200, await sampler.json()),
    },
    {
      method: 'GET',
      path: '/api/v1/health',
      auth: false,
      handler: (_req, res) => sendJson(res, 200, { status: 'ok', version: VERSION }),
    },
  ];
}
