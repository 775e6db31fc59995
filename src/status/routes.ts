// GET /api/v1/devicestatus/get and GET /api/v1/health
import { sendJson, sendJsonText } from '../http/respond.ts';
import type { Route } from '../http/types.ts';
import { VERSION } from '../version.ts';
import type { JsonText, StatusSampler } from './sampler.ts';

export function statusRoutes(sampler: StatusSampler): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/devicestatus/get',
      auth: true,
      handler: (_req, res) => {
        const send = (body: JsonText) => sendJsonText(res, 200, body.text, undefined, body.length);
        const body = sampler.json();
        return body instanceof Promise ? body.then(send) : send(body);
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
