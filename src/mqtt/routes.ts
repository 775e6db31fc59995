// GET /api/v1/mqtt (docs/api.md#mqtt): the link's state, `{"enabled": false}` with it off.
import { json } from '../apidocs/responses.ts';
import { sendJson } from '../http/respond.ts';
import type { Route } from '../http/types.ts';
import type { MqttStatus } from './status.ts';

/** `mqttStatus`: the link's state; undefined (or absent) with the link off. */
export function mqttRoutes({ mqttStatus: status }: { mqttStatus?: () => MqttStatus | undefined }): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/mqtt',
      scope: 'status',
      doc: () => ({
        operation: {
          tags: ['status'],
          operationId: 'mqttStatus',
          summary: 'The MQTT link: connected or not, since when, the last error',
          responses: {
            200: {
              description: 'the link; `{"enabled": false}` when no `mqtt` is configured',
              content: json({
                type: 'object',
                required: ['enabled'],
                properties: {
                  enabled: { type: 'boolean' },
                  url: { type: 'string' },
                  clientId: { type: 'string' },
                  connected: { type: 'boolean' },
                  since: { type: 'string', format: 'date-time' },
                  lastError: {
                    type: ['object', 'null'],
                    properties: { time: { type: 'string', format: 'date-time' }, text: { type: 'string' } },
                  },
                  published: { type: 'integer', minimum: 0 },
                  received: { type: 'integer', minimum: 0 },
                },
              }),
            },
          },
        },
      }),
      handler: (_req, res) => sendJson(res, 200, status?.() ?? { enabled: false }),
    },
  ];
}
