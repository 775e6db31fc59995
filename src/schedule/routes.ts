// /api/v1/schedule and its preview (docs/schedule.md, "API"), scope `audio`. Only these
// declarations load at start: the document, the window rules and the recorder are
// imported on the first request, or once a schedule file appears (src/serve.ts).
import type { AuditEvent } from '../audit/trail.ts';
import { json } from '../apidocs/responses.ts';
import { Errors, HttpError } from '../http/errors.ts';
import { readJsonObject } from '../http/json-body.ts';
import { sendJson } from '../http/respond.ts';
import type { Request, Route } from '../http/types.ts';
import { parseQuery } from '../files/query.ts';
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

const actor = (req: Request) => {
  const user = req.user!;
  return { user: user.username || null, credential: user.credential, client: req.socket.remoteAddress ?? '' };
};

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

/** `from` (YYYY-MM-DD, default today in the zone) and `days` (1–366, default 7) of a preview. */
async function previewOf(schedule: unknown, from: unknown, days: unknown) {
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
  const p = windows.preview(c, fromDay, n);
  return {
    windows: p.windows.map((w) => ({
      start: c.zone.iso(w.start),
      end: c.zone.iso(w.end),
      on: w.on.map(([a, b]) => [c.zone.iso(a), c.zone.iso(b)]),
    })),
    skipped: p.skipped.map((k) => ({ date: zone.dateOfDay(k.day), window: k.window, reason: k.reason })),
  };
}

export function scheduleRoutes(deps: ScheduleRouteDeps): Route[] {
  const tags = ['schedule'];
  return [
    {
      method: 'GET',
      path: '/api/v1/schedule',
      scope: 'audio',
      doc: () => ({
        operation: {
          tags,
          operationId: 'scheduleGet',
          summary: 'The stored schedule (defaults filled in) and what it does now',
          responses: { 200: { description: 'the schedule (null: none) and its state', content: json(stateSchema) } },
        },
      }),
      handler: async (_req, res) => sendJson(res, 200, await answer(await deps.service())),
    },
    {
      method: 'PUT',
      path: '/api/v1/schedule',
      scope: 'audio',
      doc: () => ({
        operation: {
          tags,
          operationId: 'scheduleSet',
          summary: 'Store a schedule; it applies at once',
          requestBody: { required: true, content: json({ type: 'object' }) },
          responses: { 200: { description: 'stored: the schedule and its state, as GET', content: json(stateSchema) } },
        },
        errors: [invalid('windows[1].start: must be HH:MM or a sun event with an offset'), Errors.bodyNotJson()],
        notes: { 400: 'The body is not a schedule: the text names the field by path' },
      }),
      handler: async (req, res) => {
        const body = await readJsonObject(req, BODY_LIMIT);
        const { document, store } = await modules();
        try {
          document.parseSchedule(body);
        } catch (err) {
          if (err instanceof document.ScheduleInvalid) throw invalid(err.message);
          throw err;
        }
        await store.writeScheduleFile(deps.file(), body);
        const service = await deps.service();
        service.reload();
        deps.audit.record({ event: 'schedule.set', outcome: 'ok', ...actor(req) });
        sendJson(res, 200, await answer(service));
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/schedule',
      scope: 'audio',
      doc: () => ({
        operation: {
          tags,
          operationId: 'scheduleClear',
          summary: 'Remove the schedule; a running segment ends and is kept',
          responses: { 204: { description: 'removed (or there was none)' } },
        },
      }),
      handler: async (req, res) => {
        req.resume();
        const { store } = await modules();
        await store.removeScheduleFile(deps.file());
        (await deps.service()).reload();
        deps.audit.record({ event: 'schedule.clear', outcome: 'ok', ...actor(req) });
        res.writeHead(204).end();
      },
    },
    {
      method: 'GET',
      path: '/api/v1/schedule/preview',
      scope: 'audio',
      doc: () => ({
        operation: {
          tags,
          operationId: 'schedulePreview',
          summary: "The stored schedule's merged windows that begin on the days asked, computed as the recorder will",
          parameters: [
            { name: 'from', in: 'query', schema: { type: 'string', format: 'date' }, description: "default: today in the schedule's zone" },
            { name: 'days', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 366, default: 7 } },
          ],
          responses: {
            200: { description: 'the windows and the windows skipped (a sun event that does not happen)', content: json(previewSchema) },
          },
        },
        errors: [
          noSchedule(),
          Errors.badField('days', 'must be an integer from 1 to 366'),
          Errors.badField('from', 'must be a date YYYY-MM-DD'),
        ],
      }),
      handler: async (req, res) => {
        const query = parseQuery(req.search);
        const service = await deps.service();
        const stored = service.schedule;
        if (!stored) throw noSchedule();
        const raw = query.get('days');
        const days = raw === undefined ? undefined : /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
        sendJson(res, 200, await previewOf(stored, query.get('from'), days));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/schedule/preview',
      scope: 'audio',
      doc: () => ({
        operation: {
          tags,
          operationId: 'schedulePreviewProposed',
          summary: 'The preview of a schedule not yet stored',
          requestBody: {
            required: true,
            content: json({
              type: 'object',
              properties: { schedule: { type: 'object' }, from: { type: 'string', format: 'date' }, days: { type: 'integer' } },
            }),
          },
          responses: { 200: { description: 'as GET', content: json(previewSchema) } },
        },
        errors: [invalid('schedule.windows[0].end: must be HH:MM or a sun event with an offset'), Errors.bodyNotJson()],
      }),
      handler: async (req, res) => {
        const body = await readJsonObject(req, BODY_LIMIT);
        for (const key of Object.keys(body)) {
          if (!['schedule', 'from', 'days'].includes(key)) throw invalid(`${key}: is not a field of a preview`);
        }
        const doc = body.schedule;
        if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalid('schedule: must be a JSON object');
        try {
          sendJson(res, 200, await previewOf(doc, body.from, body.days));
        } catch (err) {
          // The document is under `schedule`: its paths say so.
          if (err instanceof HttpError && err.status === 400 && !/^(from|days) /.test(err.message))
            throw invalid(`schedule.${err.message}`);
          throw err;
        }
      },
    },
  ];
}
