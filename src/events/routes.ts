// GET /api/v1/events: the Server-Sent Events stream (CONTRACT §11), bearer header required.
import type { Route } from '../http/types.ts';
import type { EventHub } from './hub.ts';

export function eventRoutes(hub: EventHub): Route[] {
  return [{
    method: 'GET',
    path: '/api/v1/events',
    auth: true,
    handler: (req, res) => hub.open(req, res, req.tokenExpiresAt),
  }];
}
