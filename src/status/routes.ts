// GET /api/v1/devicestatus/get and GET /api/v1/health
import { json, ref } from '../apidocs/responses.ts';
import { jsonHeaders, sendJson } from '../http/respond.ts';
import type { Response, Route } from '../http/types.ts';
import { VERSION } from '../util/version.ts';
import type { JsonText, StatusSampler } from './sampler.ts';

export function statusRoutes(sampler: StatusSampler): Route[] {
  // The sampler keeps one serialised body until the next sample: its headers are made
  // once with it, not for every answer.
  let last: JsonText | undefined;
  let headers = jsonHeaders(0);
  const send = (res: Response, body: JsonText) => {
    if (body !== last) {
      last = body;
      headers = jsonHeaders(body.length);
    }
    res.writeHead(200, headers);
    res.end(body.text);
  };
  return [
    {
      method: 'GET',
      path: '/api/v1/devicestatus/get',
      scope: 'status',
      doc: () => ({
        operation: {
          tags: ['status'],
          operationId: 'deviceStatus',
          summary: 'Current device status',
          responses: { 200: { description: 'the device status record', content: json(ref('DeviceStatus')) } },
        },
      }),
      handler: (_req, res) => {
        const body = sampler.json();
        return body instanceof Promise ? body.then((b) => send(res, b)) : send(res, body);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/health',
      scope: null,
      doc: () => ({
        operation: {
          tags: ['status'],
          operationId: 'health',
          summary: 'Liveness and version',
          responses: { 200: { description: 'the agent runs', content: json(ref('Health')) } },
        },
      }),
      handler: (_req, res) => sendJson(res, 200, { status: 'ok', version: VERSION }),
    },
  ];
}
