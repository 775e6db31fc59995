// /api/v1/schedule and its preview (docs/schedule.md, "API"), scope `audio`. Only these
// declarations load at start: the document, the window rules and the recorder are
// imported on the first request, or once a schedule file appears (src/serve.ts).
import type { AuditEvent } from '../audit/trail.ts';
import { Errors, HttpError } from '../http/errors.ts';
import type { Route } from '../http/types.ts';
import { number, string } from '../ops/fields.ts';
import { toRoute } from '../ops/http.ts';
import { type Context, type JsonText, operation } from '../ops/operation.ts';
import { lazy } from '../util/lazy.ts';
import type { ScheduleService } from './service.ts';

const BODY_LIMIT = 64 * 1024;
const modules = lazy('schedule', () =>
  Promise.all([import('./document.ts'), import('./store.ts'), import('./windows.ts'), import('./zone.ts')]).then(
    ([document, store, windows, zone]) => ({ document, store, windows, zone }),
  ),
);

export interface ScheduleRouteDeps {
  /** The running service (made, and its modules loaded, on first use). */
  service: () => Promise<ScheduleService>;
  file: () => string;
  audit: { record(event: AuditEvent): void };
}

const noSchedule = () => new HttpError(404, 'no schedule');
const invalid = (message: string) => new HttpError(400, message);

const actor = (ctx: Context) => {
  const user = ctx.principal!;
  return { user: user.username || null, credential: user.credential, client: ctx.client };
};

/** The stored document checked (400 naming the field by path); the modules loaded on the way. */
async function checkSchedule(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { document } = await modules();
  try {
    document.parseSchedule(body);
  } catch (err) {
    if (err instanceof document.ScheduleInvalid) throw invalid(err.message);
    throw err;
  }
  return body;
}

/** A proposed preview's body: `schedule` (an object), `from`, `days`; the document itself is checked by previewOf. */
function checkProposed(body: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(body)) {
    if (!['schedule', 'from', 'days'].includes(key)) throw invalid(`${key}: is not a field of a preview`);
  }
  const doc = body.schedule;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalid('schedule: must be a JSON object');
  return body;
}

const stateSchema = {
  type: 'object',
  properties: {
    schedule: { type: ['object', 'null'], description: 'the stored document with its defaults filled in' },
    state: {
      type: 'object',
      properties: {
        state: { enum: ['off', 'waiting', 'recording'] },
        reason: { type: ['string', 'null'] },
        window: { type: ['object', 'null'] },
        next: { type: ['object', 'null'] },
        lastSegment: { type: ['object', 'null'] },
      },
    },
  },
};
/** The document a PUT stores (docs/schedule.md): its keys; the checks and their texts are parseSchedule's. */
const documentSchema = {
  type: 'object',
  properties: {
    enabled: { type: 'boolean' },
    location: { type: ['object', 'null'], properties: { latitude: { type: 'number' }, longitude: { type: 'number' } } },
    timeZone: { type: ['string', 'null'] },
    recording: { type: 'object' },
    windows: { type: 'array', items: { type: 'object', properties: { start: { type: 'string' }, end: { type: 'string' } } } },
  },
};
const previewSchema = {
  type: 'object',
  properties: {
    windows: {
      type: 'array',
      items: { type: 'object', properties: { start: { type: 'string' }, end: { type: 'string' }, on: { type: 'array' } } },
    },
    skipped: {
      type: 'array',
      items: { type: 'object', properties: { date: { type: 'string' }, window: { type: 'integer' }, reason: { type: 'string' } } },
    },
  },
};

/** The answer of GET and PUT. */
async function answer(service: ScheduleService) {
  return { schedule: service.schedule, state: service.state() };
}

/**
 * `from` (YYYY-MM-DD, default today in the zone) and `days` (1–366, default 7) of a preview:
 * its JSON, written straight to text (windows.previewJson).
 */
async function previewOf(schedule: unknown, from: unknown, days: unknown): Promise<JsonText> {
  const { document, windows, zone } = await modules();
  let s: ReturnType<typeof document.parseSchedule>;
  try {
    s = document.parseSchedule(schedule);
  } catch (err) {
    if (err instanceof document.ScheduleInvalid) throw invalid(err.message);
    throw err;
  }
  const c = windows.compile(s);
  let fromDay: number;
  if (from === undefined || from === null) fromDay = c.zone.dayOf(Date.now());
  else {
    const d = typeof from === 'string' ? zone.dayOfDate(from) : null;
    if (d === null) throw Errors.badField('from', 'must be a date YYYY-MM-DD');
    fromDay = d;
  }
  const n = days === undefined || days === null ? 7 : days;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 366) throw Errors.badField('days', 'must be an integer from 1 to 366');
  const text = windows.previewJson(c, fromDay, n);
  return { text, length: text.length };
}

/** No routes while the agent runs without a schedule service (a test's app); the agent always has one. */
export function scheduleRoutes({ schedule: deps }: { schedule?: ScheduleRouteDeps }): Route[] {
  if (!deps) return [];
  const tags = ['schedule'];
  return [
    operation({
      id: 'scheduleGet',
      method: 'GET',
      path: '/api/v1/schedule',
      scope: 'audio',
      action: 'schedule/get',
      tags,
      summary: 'The stored schedule (defaults filled in) and what it does now',
      answers: { 200: { description: 'the schedule (null: none) and its state', schema: stateSchema } },
      run: async () => ({ status: 200, body: await answer(await deps.service()) }),
    }),
    operation({
      id: 'scheduleSet',
      method: 'PUT',
      path: '/api/v1/schedule',
      scope: 'audio',
      action: 'schedule/set',
      tags,
      summary: 'Store a schedule; it applies at once',
      document: {
        limit: BODY_LIMIT,
        schema: documentSchema,
        check: checkSchedule,
        errors: () => [invalid('windows[1].start: must be HH:MM or a sun event with an offset')],
      },
      answers: { 200: { description: 'stored: the schedule and its state, as GET', schema: stateSchema } },
      notes: { 400: 'The body is not a schedule: the text names the field by path' },
      run: async ({ document: body }, ctx) => {
        const { store } = await modules();
        await store.writeScheduleFile(deps.file(), body);
        const service = await deps.service();
        service.reload();
        deps.audit.record({ event: 'schedule.set', outcome: 'ok', ...actor(ctx) });
        return { status: 200, body: await answer(service) };
      },
    }),
    operation({
      id: 'scheduleClear',
      method: 'DELETE',
      path: '/api/v1/schedule',
      scope: 'audio',
      action: 'schedule/clear',
      tags,
      summary: 'Remove the schedule; a running segment ends and is kept',
      answers: { 204: { description: 'removed (or there was none)' } },
      run: async (_input, ctx) => {
        const { store } = await modules();
        await store.removeScheduleFile(deps.file());
        (await deps.service()).reload();
        deps.audit.record({ event: 'schedule.clear', outcome: 'ok', ...actor(ctx) });
        return { status: 204 };
      },
    }),
    operation({
      id: 'schedulePreview',
      method: 'GET',
      path: '/api/v1/schedule/preview',
      scope: 'audio',
      tags,
      summary: "The stored schedule's merged windows that begin on the days asked, computed as the recorder will",
      query: {
        from: string({ rule: 'must be a date YYYY-MM-DD', pattern: /^\d{4}-\d{2}-\d{2}$/, format: 'date' }).about(
          "default: today in the schedule's zone",
        ),
        days: number({ rule: 'must be an integer from 1 to 366', integer: true, min: 1, max: 366 }).or(7),
      },
      answers: {
        200: { description: 'the windows and the windows skipped (a sun event that does not happen)', schema: previewSchema },
      },
      errors: () => [noSchedule()],
      run: async ({ query }) => {
        const service = await deps.service();
        const stored = service.schedule;
        if (!stored) throw noSchedule();
        return { status: 200, json: await previewOf(stored, query.from, query.days) };
      },
    }),
    operation({
      id: 'schedulePreviewProposed',
      method: 'POST',
      path: '/api/v1/schedule/preview',
      scope: 'audio',
      tags,
      summary: 'The preview of a schedule not yet stored',
      document: {
        limit: BODY_LIMIT,
        schema: {
          type: 'object',
          properties: { schedule: documentSchema, from: { type: 'string', format: 'date' }, days: { type: 'integer' } },
        },
        check: checkProposed,
        errors: () => [
          invalid('<key>: is not a field of a preview'),
          invalid('schedule: must be a JSON object'),
          invalid('schedule.windows[0].end: must be HH:MM or a sun event with an offset'),
          Errors.badField('from', 'must be a date YYYY-MM-DD'),
          Errors.badField('days', 'must be an integer from 1 to 366'),
        ],
      },
      answers: { 200: { description: 'as GET', schema: previewSchema } },
      run: async ({ document }) => {
        const body = document as Record<string, unknown>;
        try {
          return { status: 200, json: await previewOf(body.schedule, body.from, body.days) };
        } catch (err) {
          // The document is under `schedule`: its paths say so.
          if (err instanceof HttpError && err.status === 400 && !/^(from|days) /.test(err.message))
            throw invalid(`schedule.${err.message}`);
          throw err;
        }
      },
    }),
  ].map(toRoute);
}
