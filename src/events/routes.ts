// GET /api/v1/events: the Server-Sent Events stream (docs/api.md, "Events"), scope status.
import type { ApiTokenStore } from '../auth/api-tokens.ts';
import type { Tokens } from '../auth/tokens.ts';
import { Errors } from '../http/errors.ts';
import type { Request, Route } from '../http/types.ts';
import { LEVEL_EVERY_MS } from '../audio/capture.ts';
import { EVENT_LIMITS, type EventHub } from './hub.ts';

/**
 * Whose request (the user, one for all their tokens and sessions: the stream slots'
 * quota), how long its credential holds, and whether it still does (revocation, a user removed).
 */
export function validity(
  req: Request,
  creds: { tokens: Tokens; apiTokens: ApiTokenStore },
): { user: string; expiresAtMs: number; valid: () => boolean } {
  const user = req.user!.id || req.user!.username;
  const hash = req.apiToken;
  if (hash !== undefined) {
    return { user, expiresAtMs: creds.apiTokens.expiresAtMs(hash), valid: () => creds.apiTokens.valid(hash) };
  }
  const claims = req.claims!; // the credential check set them
  return {
    user,
    expiresAtMs: claims.exp * 1000,
    // A password change or removal of the user revokes the token: the stream ends too.
    valid: () => {
      try {
        creds.tokens.check(claims);
        return true;
      } catch {
        return false;
      }
    },
  };
}

export function eventRoutes(deps: { events: EventHub; tokens: Tokens; apiTokens: ApiTokenStore }): Route[] {
  const { events: hub } = deps;
  return [
    {
      method: 'GET',
      path: '/api/v1/events',
      scope: 'status',
      handler: (req, res) => {
        hub.open(req, res, validity(req, deps));
      },
      doc: () => ({
        operation: {
          tags: ['status'],
          operationId: 'events',
          summary: 'Server-Sent Events: status and recording as they change',
          description:
            'A `text/event-stream` that stays open. On connect: a `recording` event (the RecordingStatus ' +
            `record) and a \`status\` event (the DeviceStatus record); then \`status\` every ${EVENT_LIMITS.statusMs / 1000} s ` +
            `(one refresh shared by all streams), \`recording\` at every state change, and a comment line at least every ` +
            `${EVENT_LIMITS.commentMs / 1000} s; \`level\` (\`{"device", "peakDbfs", "rmsDbfs"}\`) at most every ${LEVEL_EVERY_MS} ms (with the ` +
            'chunks of sound: 5-8 a second at any rate) for each device being captured (a recording, a live stream or a level measurement runs). Each event is ' +
            `\`event: <name>\` and one \`data: <JSON>\` line. At most ` +
            `${EVENT_LIMITS.maxStreams} streams are open at once, ${EVENT_LIMITS.maxStreamsPerUser} of them for one user (all their tokens and sessions). A stream ends when its credential expires or is revoked, and when the agent ` +
            'shuts down. Browsers read it with `fetch` and the bearer header (`EventSource` cannot send it).',
          responses: {
            200: {
              description: 'the stream: `event: recording`, `event: status`, `: keep-alive` comments',
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
          },
        },
        errors: [
          Errors.tooManyStreams(EVENT_LIMITS.maxStreams),
          Errors.tooManyStreamsForUser(EVENT_LIMITS.maxStreamsPerUser),
          Errors.shuttingDown(),
        ],
        notes: { 503: 'Too many open streams (in all, or of this user), or the agent is stopping' },
      }),
    },
  ];
}
