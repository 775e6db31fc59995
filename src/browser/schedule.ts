// "Schedule": the schedule stored on the device and what it does now, its document edited
// field by field (schedule-form.ts) or as JSON, the preview of the document as edited
// (POST /api/v1/schedule/preview: nothing is stored), then saved (PUT) or removed (DELETE)
// (docs/schedule.md, "API"). Every schedule route needs scope `audio`, reading as writing:
// main.ts shows the panel, its save control included, to a user with that scope and to
// nobody else. A refusal shows the agent's text, and the form marks the field it names.
import { getJson, request, send } from './api.ts';
import { figure, fill, h, uid } from './dom.ts';
import { bytes, duration } from './format.ts';
import { isObject, refusedPath, scheduleForm } from './schedule-form.ts';

/** A period of the API: start and end, ISO 8601 in the schedule's zone. */
interface Period {
  start: string;
  end: string;
}
export interface ScheduleState {
  state: 'off' | 'waiting' | 'recording';
  reason: string | null;
  window: Period | null;
  next: Period | null;
  lastSegment: { file: string; startedAt: string; durationSeconds: number; sizeBytes: number } | null;
}
interface ScheduleAnswer {
  schedule: Record<string, unknown> | null;
  state: ScheduleState;
}
interface Preview {
  windows: Array<Period & { on: Array<[string, string]> }>;
  skipped: Array<{ date: string; window: number; reason: string }>;
}

/** What the editor holds while no schedule is stored: an example, stored only once saved. */
const EXAMPLE = {
  location: { latitude: 52.2, longitude: 0.12 },
  timeZone: 'Europe/London',
  windows: [
    { start: 'sunrise-30m', end: 'sunrise+2h' },
    { start: '22:00', end: '02:00', duty: { onSeconds: 60, offSeconds: 240 } },
  ],
};

/** An API time as the schedule's zone has it: `2026-03-29 06:12:00+01:00`, in a <time>. */
const at = (iso: string) => h('time', { datetime: iso }, iso.replace('T', ' '));
const seconds = (p: Period) => (Date.parse(p.end) - Date.parse(p.start)) / 1000;

/** Today in the browser's zone, as YYYY-MM-DD (the preview's first day; the agent's default is today in the schedule's zone). */
function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function stateText(s: ScheduleState): string {
  return s.reason ? `${s.state} (${s.reason})` : s.state;
}

/**
 * A document as indented JSON, a short list of plain values on one line (`"days": ["sat", "sun"]`).
 * Only whitespace between values changes: a match that a string's text could be part of holds
 * a line break, which no JSON string can, so it does not parse and is left as it is.
 */
function pretty(doc: unknown): string {
  return JSON.stringify(doc, null, 2).replace(/\[\n[^[\]{}]*\]/g, (m) => {
    try {
      const values = JSON.parse(m) as unknown[];
      return `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;
    } catch {
      return m;
    }
  });
}

const span = (p: Period | null) => (p ? [at(p.start), ' to ', at(p.end)] : ['none']);

export function scheduleView() {
  const figures = h('dl', { class: 'figures' });
  const stored = h('p', { class: 'note' });
  const editor = h('textarea', {
    id: uid('schedule-doc'),
    rows: '14',
    spellcheck: 'false',
    autocapitalize: 'none',
    autocomplete: 'off',
    class: 'schedule-doc',
  });
  const from = h('input', { id: uid('schedule-from'), type: 'date', value: today(), required: true });
  const days = h('input', { id: uid('schedule-days'), type: 'number', min: '1', max: '366', value: '7', required: true });
  const previewButton = h('button', { type: 'button', class: 'secondary' }, 'Preview');
  const save = h('button', { type: 'button' }, 'Save schedule');
  const remove = h('button', { type: 'button', class: 'secondary' }, 'Remove schedule');
  const done = h('p', { role: 'status', class: 'note' });
  const error = h('p', { role: 'alert', class: 'error', id: uid('schedule-error') });
  /** The JSON box holds edits the form has not taken (text that does not parse yet). */
  let jsonEdited = false;
  const form = scheduleForm(() => {
    editor.value = pretty(form.doc());
    jsonEdited = false;
  });
  editor.addEventListener('input', () => {
    const doc = jsonDocument(editor.value);
    // Not a document: the box holds the edit, and what is wrong with it is said when it is sent.
    jsonEdited = typeof doc === 'string';
    if (typeof doc !== 'string') form.set(doc);
  });
  const rows = h('tbody', {});
  const skipped = h('ul', { class: 'skipped' });
  const caption = h('caption', {});
  const result = h(
    'div',
    { class: 'schedule-preview', hidden: true },
    h(
      'div',
      { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Preview' },
      h('table', {}, caption, h('thead', {}, h('tr', {}, ...['Start', 'End', 'Recording'].map((t) => h('th', { scope: 'col' }, t)))), rows),
    ),
    skipped,
  );
  const field = (label: string, control: HTMLElement) => h('div', { class: 'field' }, h('label', { for: control.id }, label), control);

  const el = h(
    'section',
    { 'aria-labelledby': 'h-schedule', class: 'card schedule' },
    h('h2', { id: 'h-schedule' }, 'Schedule'),
    figures,
    stored,
    form.el,
    h(
      'details',
      { class: 'schedule-json' },
      h('summary', {}, 'The document as JSON'),
      h('p', { class: 'hint' }, 'The same document as the form, as the API takes it; an edit here shows in the form.'),
      field('Schedule document (JSON)', editor),
    ),
    h('p', { class: 'hint' }, 'Preview shows what the device would record, before anything is saved.'),
    h('div', { class: 'schedule-tools' }, field('Preview from', from), field('Days', days), h('div', { class: 'buttons' }, previewButton)),
    result,
    h('div', { class: 'buttons schedule-save' }, save, remove),
    done,
    error,
  );

  /** The editor's text as a document, or the reason it is not one (said, and nothing sent). */
  const documentOf = (): Record<string, unknown> | undefined => {
    error.textContent = '';
    done.textContent = '';
    form.mark(null);
    if (!jsonEdited) return form.doc();
    const doc = jsonDocument(editor.value);
    if (typeof doc !== 'string') return doc;
    error.textContent = doc;
    return undefined;
  };

  const showState = (s: ScheduleState) => {
    const last = s.lastSegment;
    fill(
      figures,
      ...figure('State', stateText(s)),
      h('dt', {}, 'Window'),
      h('dd', {}, ...span(s.window)),
      h('dt', {}, 'Next window'),
      h('dd', {}, ...span(s.next)),
      ...figure(
        'Last segment',
        last ? last.file : 'none',
        last ? `(${duration(last.durationSeconds)}, ${bytes(last.sizeBytes)})` : undefined,
      ),
    );
  };
  const show = (a: ScheduleAnswer) => {
    showState(a.state);
    stored.textContent =
      a.schedule === null
        ? 'No schedule is stored: the device records only when asked. The document below is an example, stored only once saved.'
        : 'The stored schedule, with every default filled in:';
    form.set(a.schedule ?? EXAMPLE);
    editor.value = pretty(a.schedule ?? EXAMPLE);
    jsonEdited = false;
    remove.hidden = a.schedule === null;
  };

  const render = (p: Preview) => {
    caption.textContent = `Windows beginning on ${days.value} day(s) from ${from.value}, in the schedule's time zone`;
    fill(
      rows,
      ...(p.windows.length > 0
        ? p.windows.map((w) => {
            const whole = w.on.length === 1 && w.on[0]![0] === w.start && w.on[0]![1] === w.end;
            const on = w.on.reduce((sum, [start, end]) => sum + seconds({ start, end }), 0);
            return h(
              'tr',
              {},
              h('td', {}, at(w.start)),
              h('td', {}, at(w.end)),
              h(
                'td',
                { 'data-periods': String(w.on.length) },
                whole ? 'the whole window' : `${w.on.length} period(s), ${duration(on)} of ${duration(seconds(w))}`,
              ),
            );
          })
        : [h('tr', {}, h('td', { colspan: '3', class: 'empty' }, 'No window begins on these days.'))]),
    );
    fill(skipped, ...p.skipped.map((s) => h('li', {}, `${s.date}: window ${s.window} skipped (${s.reason})`)));
    result.hidden = false;
  };

  const busy = (on: boolean) => {
    for (const b of [previewButton, save, remove]) b.disabled = on;
  };
  /** Runs a request, showing its refusal in the panel's alert (a 401 is back at the login form). */
  const act = async (fn: () => Promise<void>) => {
    error.textContent = '';
    done.textContent = '';
    busy(true);
    try {
      await fn();
    } catch (err) {
      if ((err as { status?: number }).status !== 401) {
        error.textContent = (err as Error).message;
        form.mark(refusedPath(error.textContent), error.id);
      }
    } finally {
      busy(false);
    }
  };

  previewButton.addEventListener('click', () => {
    const doc = documentOf();
    if (!doc) return;
    void act(async () => {
      result.hidden = true;
      const body = { schedule: doc, from: from.value, days: Number(days.value) };
      render(await (await fetchJson('POST', '/api/v1/schedule/preview', body)).json());
    });
  });
  save.addEventListener('click', () => {
    const doc = documentOf();
    if (!doc) return;
    void act(async () => {
      show(await (await fetchJson('PUT', '/api/v1/schedule', doc)).json());
      done.textContent = 'Saved: the device follows this schedule now.';
    });
  });
  remove.addEventListener('click', () => {
    void act(async () => {
      await send('/api/v1/schedule', 'DELETE');
      show(await getJson<ScheduleAnswer>('/api/v1/schedule'));
      result.hidden = true;
      done.textContent = 'Removed: the device records only when asked.';
    });
  });

  return {
    el,
    /** The stored schedule and its state (at login). */
    async open(): Promise<void> {
      await act(async () => show(await getJson<ScheduleAnswer>('/api/v1/schedule')));
    },
    /** A `schedule` event: its state alone (the document being edited is left as it is). */
    state: showState,
  };
}

/** The JSON box's text as a document, or what is wrong with it. */
function jsonDocument(text: string): Record<string, unknown> | string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return `the document is not JSON: ${(err as Error).message}`;
  }
  return isObject(doc) ? doc : 'the document must be a JSON object';
}

/** A JSON request with a JSON answer (api.ts's request: the bearer header, a 401, the agent's error text). */
function fetchJson(method: string, path: string, body: unknown): Promise<Response> {
  return request(path, {
    method,
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}
