// GET /api/v1/outbox and POST /api/v1/outbox/retry (docs/outbox.md, "API"). Static and small:
// with the outbox off they answer from the slot without loading the outbox itself.
import { json } from '../apidocs/responses.ts';
import { Errors } from '../http/errors.ts';
import { sendJson } from '../http/respond.ts';
import type { Route } from '../http/types.ts';
import type { OutboxSlot } from './slot.ts';

const time = { type: ['string', 'null'], format: 'date-time' };
const count = {
  type: 'object',
  required: ['files', 'bytes'],
  additionalProperties: false,
  properties: { files: { type: 'integer' }, bytes: { type: 'integer' } },
};
export const OUTBOX_SCHEMA = {
  type: 'object',
  required: ['enabled', 'state'],
  additionalProperties: false,
  properties: {
    enabled: { type: 'boolean' },
    target: {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: {
        type: { enum: ['s3', 'presigned', 'http'] },
        endpoint: { type: 'string' },
        url: { type: 'string' },
        bucket: { type: 'string' },
      },
    },
    state: { enum: ['idle', 'uploading', 'waiting', 'off'] },
    pending: count,
    oldestPendingAt: time,
    failed: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'error', 'since'],
        additionalProperties: false,
        properties: { path: { type: 'string' }, error: { type: 'string' }, since: { type: 'string', format: 'date-time' } },
      },
    },
    uploaded: count,
    lastSuccessAt: time,
    lastError: {
      type: ['object', 'null'],
      required: ['time', 'text'],
      additionalProperties: false,
      properties: { time: { type: 'string', format: 'date-time' }, text: { type: 'string' } },
    },
    nextAttemptAt: time,
  },
};

export function outboxRoutes(slot: OutboxSlot | undefined): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/outbox',
      scope: 'files:read',
      doc: () => ({
        operation: {
          tags: ['outbox'],
          operationId: 'outboxState',
          summary: "The outbox's state: pending, set-aside and uploaded files, the target's last error and next attempt",
          responses: {
            200: { description: 'the state; `{"enabled": false, "state": "off"}` with no outbox configured', content: json(OUTBOX_SCHEMA) },
          },
        },
      }),
      handler: (_req, res) => sendJson(res, 200, slot?.status() ?? { enabled: false, state: 'off' }),
    },
    {
      method: 'POST',
      path: '/api/v1/outbox/retry',
      scope: 'files:write',
      doc: () => ({
        operation: {
          tags: ['outbox'],
          operationId: 'outboxRetry',
          summary: 'Start the next attempt now, set-aside files included',
          responses: { 202: { description: 'the attempt starts; the state as GET /api/v1/outbox gives it', content: json(OUTBOX_SCHEMA) } },
        },
        errors: [Errors.outboxOff()],
        notes: { 409: 'no outbox is configured' },
      }),
      handler: (_req, res) => {
        const outbox = slot?.on;
        if (!outbox) throw Errors.outboxOff();
        outbox.retry();
        sendJson(res, 202, outbox.status());
      },
    },
  ];
}
