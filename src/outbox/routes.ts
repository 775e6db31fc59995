// GET /api/v1/outbox and POST /api/v1/outbox/retry (docs/outbox.md, "API"), declared as
// operations. Static and small: with the outbox off they answer without loading the outbox.
import { Errors } from '../http/errors.ts';
import { toRoute } from '../ops/http.ts';
import { operation } from '../ops/operation.ts';
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

const OFF = { enabled: false, state: 'off' };

/** The outbox's operations (src/ops/operation.ts); no inputs, so nothing to parse. */
export function outboxRoutes({ outbox: slot }: { outbox?: OutboxSlot }): Route[] {
  return [
    operation({
      id: 'outboxState',
      method: 'GET',
      path: '/api/v1/outbox',
      scope: 'files:read',
      action: 'outbox/get',
      tags: ['outbox'],
      summary: "The outbox's state: pending, set-aside and uploaded files, the target's last error and next attempt",
      answers: { 200: { description: 'the state; `{"enabled": false, "state": "off"}` with no outbox configured', schema: OUTBOX_SCHEMA } },
      run: () => ({ status: 200, body: slot?.status() ?? OFF }),
    }),
    operation({
      id: 'outboxRetry',
      method: 'POST',
      path: '/api/v1/outbox/retry',
      scope: 'files:write',
      action: 'outbox/retry',
      tags: ['outbox'],
      summary: 'Start the next attempt now, set-aside files included',
      answers: { 202: { description: 'the attempt starts; the state as GET /api/v1/outbox gives it', schema: OUTBOX_SCHEMA } },
      errors: () => [Errors.outboxOff()],
      notes: { 409: 'no outbox is configured' },
      run: () => {
        const outbox = slot?.on;
        if (!outbox) throw Errors.outboxOff();
        outbox.retry();
        return { status: 202, body: outbox.status() };
      },
    }),
  ].map(toRoute);
}
