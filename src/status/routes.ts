// GET /api/v1/devicestatus/get and GET /api/v1/health
import { sendJson, sendJsonText } from '../http/respond.ts';
import type { Route } from '../http/types.ts';
import { VERSION } from '../version.ts';
import type { StatusSampler } from './sampler.ts';

export function statusRoutes(sampler: StatusSampler): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/devicestatus/get',
      auth: true,
      handler: (_req, res) => {
        const fresh = sampler.freshJson();
        if (fresh) return sendJsonText(res, 200, fresh.text, undefined, fresh.length);
        return sampler.json().then((body) => sendJsonText(res, 200, body.text, undefined, body.length));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/health',
      auth: false,
      handler: (_req, res) => sendJson(res, 200, { status: 'ok', version: VERSION }),
    },
  ];
}
