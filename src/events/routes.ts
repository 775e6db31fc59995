// GET /api/v1/events: the Server-Sent Events stream (CONTRACT §11), bearer header required.
import type { Tokens } from '../auth/tokens.ts';
import type { Route } from '../http/types.ts';
import type { EventHub } from './hub.ts';

export function eventRoutes(hub: EventHub, tokens: Tokens): Route[] {
  return [{
    method: 'GET',
    path: '/api/v1/events',
    auth: true,
    handler: (req, res) => {
      const claims = req.claims!; // the auth check set them
      hub.open(req, res, {
        expiresAtMs: claims.exp * 1000,
        // A password change or removal of the user revokes the token: the stream ends too.
        valid: () => {
          try {
            tokens.check(claims);
            return true;
          } catch {
            return false;
          }
        },
      });
    },
  }];
}
