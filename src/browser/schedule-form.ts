// The schedule document field by field (docs/schedule.md, "The document"): a control per
// field, a group per window, windows added and removed. The document is the truth: each
// control writes its field into it and reads it back from it, so a field the form has no
// control for (one typed in the JSON box) is kept and sent, and the agent refuses it by
// name. A blank control leaves its field out (the agent's default) or, where the document
// says so, null (no location, the configured device). The agent checks every value; the
// form only offers them, and marks the control its refusal names. Its labels differ from
// those of the page's other forms (the recording's Format, the token's Directory).
import { SUN_EVENTS, type SunEvent } from '../schedule/sun.ts'; // pure: the bundle takes the list alone
import { h, fill, uid } from './dom.ts';

type Doc = Record<string, unknown>;
type Control = HTMLInputElement | HTMLSelectElement;

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
/** What each sun event is, beside its name in the start and end pickers (docs/schedule.md, the sun events). */
const SUN_EVENT_SAID: Record<SunEvent, string> = {
  sunrise: "sunrise: the sun's upper edge at the horizon",
  sunset: "sunset: the sun's upper edge at the horizon",
  dawn: 'civil dawn: the sun 6° below the horizon',
  dusk: 'civil dusk: the sun 6° below the horizon',
  nauticalDawn: 'nautical dawn: 12° below',
  nauticalDusk: 'nautical dusk: 12° below',
  nightEnd: 'astronomical dawn, the end of night: 18° below',
  night: 'astronomical dusk, night: 18° below',
  solarNoon: 'solar noon: the sun at its highest',
};
/** The document's own limit (docs/schedule.md). */
export const MAX_WINDOWS = 16;

export const isObject = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object at `keys` under `doc`, made (or replaced, if it is not an object) on the way. */
function objectAt(doc: Doc, keys: readonly string[]): Doc {
  let at = doc;
  for (const k of keys) {
    if (!isObject(at[k])) at[k] = {};
    at = at[k] as Doc;
  }
  return at;
}

/** A field's text in a control: a string as it is, anything else as JSON (the agent will name it). */
const shown = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
/** A number control's value: its number, or undefined when blank. */
const numberOf = (input: HTMLInputElement) => (input.value === '' ? undefined : Number(input.value));

function setOrDelete(at: Doc, key: string, value: unknown): void {
  if (value === undefined) delete at[key];
  else at[key] = value;
}

export interface ScheduleForm {
  el: HTMLElement;
  /** The document as edited. */
  doc(): Doc;
  /** Shows a document (its copy becomes the one edited). */
  set(doc: Doc): void;
  /** Marks the control of a refusal's path (`windows[1].start`, `location`), or clears every mark. */
  mark(path: string | null, describedBy?: string): void;
}

export function scheduleForm(changed: () => void): ScheduleForm {
  let doc: Doc = {};
  /** Each control by its field's path, for a refusal's mark; rebuilt with the windows. */
  const byPath = new Map<string, Control>();
  const field = (label: string, control: Control, hint?: string) =>
    h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hint ? h('span', { class: 'hint' }, hint) : null);
  const input = (name: string, attrs: Record<string, string> = {}) =>
    h('input', { id: uid(`schedule-${name}`), autocomplete: 'off', spellcheck: 'false', autocapitalize: 'none', ...attrs });
  const select = (name: string, options: readonly string[]) =>
    h('select', { id: uid(`schedule-${name}`) }, ...options.map((o) => h('option', { value: o }, o)));
  /** A control bound to a field: `write` puts its value into the document on every input. */
  const bind = <C extends Control>(path: string, control: C, write: () => void): C => {
    byPath.set(path, control);
    control.addEventListener(control instanceof HTMLSelectElement || control.type === 'checkbox' ? 'change' : 'input', () => {
      write();
      changed();
    });
    return control;
  };

  // The whole document's fields.
  const enabled = input('enabled', { type: 'checkbox' });
  const latitude = input('latitude', { type: 'number', step: 'any', min: '-90', max: '90', inputmode: 'decimal' });
  const longitude = input('longitude', { type: 'number', step: 'any', min: '-180', max: '180', inputmode: 'decimal' });
  const zones = h('datalist', { id: uid('schedule-zones') });
  const timeZone = input('zone', { type: 'text', list: zones.id, placeholder: "the device's" });
  const format = select('format', ['flac', 'wav', 'mp3']);
  const segment = input('segment', { type: 'number', min: '10', max: '3600', step: '1' });
  const rate = input('rate', { type: 'number', min: '8000', max: '192000', step: '1' });
  const channels = select('channels', ['1', '2']);
  const directory = input('directory', { type: 'text' });
  const device = input('device', { type: 'text', placeholder: 'audio.device' });

  const location = () => {
    const lat = numberOf(latitude);
    const lon = numberOf(longitude);
    doc.location =
      lat === undefined && lon === undefined ? null : { ...(isObject(doc.location) ? doc.location : {}), latitude: lat, longitude: lon };
  };
  const recording = (key: string, value: unknown) => setOrDelete(objectAt(doc, ['recording']), key, value);
  bind('enabled', enabled, () => {
    doc.enabled = enabled.checked;
  });
  bind('location.latitude', latitude, location);
  bind('location.longitude', longitude, location);
  bind('timeZone', timeZone, () => setOrDelete(doc, 'timeZone', timeZone.value.trim() || undefined));
  bind('recording.fileExtension', format, () => recording('fileExtension', format.value));
  bind('recording.segmentSeconds', segment, () => recording('segmentSeconds', numberOf(segment)));
  bind('recording.sampleRate', rate, () => recording('sampleRate', numberOf(rate)));
  bind('recording.channels', channels, () => recording('channels', Number(channels.value)));
  bind('recording.directory', directory, () => recording('directory', directory.value || undefined));
  bind('recording.device', device, () => recording('device', device.value.trim() || null));
  /** The document-wide controls; the windows' are added by showWindows. */
  const fixed = new Map(byPath);

  // Start and end offer the sun events by name (a list the field's text is typed against, so
  // an offset is typed after the chosen event); any text stays possible, and the agent judges it.
  const sunEvents = h(
    'datalist',
    { id: uid('schedule-sun-events') },
    ...SUN_EVENTS.map((e) => h('option', { value: e, label: SUN_EVENT_SAID[e] })),
  );
  const windowsList = h('div', { class: 'schedule-windows' });
  const add = h('button', { type: 'button', class: 'secondary' }, 'Add window');
  /** One window's group: its start and end, days, dates and duty cycle, and its removal. */
  const windowGroup = (w: Doc, i: number) => {
    const at = `windows[${i}]`;
    const start = input('start', { type: 'text', list: sunEvents.id, placeholder: '22:00 or sunrise-30m' });
    const end = input('end', { type: 'text', list: sunEvents.id, placeholder: '02:00 or sunset+1h' });
    start.value = shown(w.start);
    end.value = shown(w.end);
    bind(`${at}.start`, start, () => setOrDelete(w, 'start', start.value.trim() || undefined));
    bind(`${at}.end`, end, () => setOrDelete(w, 'end', end.value.trim() || undefined));

    const days = DAYS.map((d) => h('input', { type: 'checkbox', value: d, id: uid(`schedule-${d}`) }));
    const chosen = Array.isArray(w.days) ? w.days : undefined;
    days.forEach((box, n) => {
      box.checked = chosen === undefined || chosen.includes(DAYS[n]);
      bind(`${at}.days`, box, () => {
        const on = days.filter((b) => b.checked).map((b) => b.value);
        setOrDelete(w, 'days', on.length === DAYS.length ? undefined : on);
      });
    });
    byPath.set(`${at}.days`, days[0]!);

    const dates = isObject(w.dates) ? w.dates : {};
    const from = input('dates-from', { type: 'text', placeholder: 'MM-DD', inputmode: 'numeric' });
    const to = input('dates-to', { type: 'text', placeholder: 'MM-DD', inputmode: 'numeric' });
    from.value = shown(dates.from);
    to.value = shown(dates.to);
    const writeDates = () => {
      const f = from.value.trim();
      const t = to.value.trim();
      setOrDelete(w, 'dates', f || t ? { ...(f ? { from: f } : {}), ...(t ? { to: t } : {}) } : undefined);
    };
    bind(`${at}.dates.from`, from, writeDates);
    bind(`${at}.dates.to`, to, writeDates);

    const duty = isObject(w.duty) ? w.duty : {};
    const on = input('duty-on', { type: 'number', min: '1', max: '86400', step: '1' });
    const off = input('duty-off', { type: 'number', min: '1', max: '86400', step: '1' });
    on.value = shown(duty.onSeconds);
    off.value = shown(duty.offSeconds);
    const writeDuty = () => {
      const a = numberOf(on);
      const b = numberOf(off);
      setOrDelete(w, 'duty', a === undefined && b === undefined ? undefined : { onSeconds: a, offSeconds: b });
    };
    bind(`${at}.duty.onSeconds`, on, writeDuty);
    bind(`${at}.duty.offSeconds`, off, writeDuty);

    const remove = h('button', { type: 'button', class: 'secondary' }, 'Remove window');
    remove.addEventListener('click', () => {
      (doc.windows as unknown[]).splice(i, 1);
      showWindows();
      changed();
    });
    return h(
      'fieldset',
      { class: 'schedule-window' },
      h('legend', {}, `Window ${i + 1}`),
      h('div', { class: 'schedule-row' }, field('Start', start), field('End', end)),
      h(
        'fieldset',
        { class: 'schedule-days' },
        h('legend', {}, 'Days it starts on'),
        ...days.map((box, n) => h('label', { class: 'check' }, box, DAY_NAMES[n])),
      ),
      h(
        'div',
        { class: 'schedule-row' },
        field('From date', from, 'MM-DD, optional'),
        field('To date', to),
        field('On (s)', on, 'duty cycle, optional'),
        field('Off (s)', off),
      ),
      h('div', { class: 'buttons' }, remove),
    );
  };

  /** The windows' groups. A value the form cannot show (windows that are no list, a window no object) is said and left as it is. */
  const showWindows = () => {
    byPath.clear();
    for (const [k, v] of fixed) byPath.set(k, v);
    const list = doc.windows ?? [];
    if (!Array.isArray(list)) {
      fill(windowsList, h('p', { class: 'note' }, 'windows is not a list: edit it in the document as JSON.'));
      add.disabled = true;
      return;
    }
    fill(
      windowsList,
      ...(list.length === 0 ? [h('p', { class: 'note' }, 'No window: nothing is recorded.')] : []),
      ...list.map((w, i) =>
        isObject(w) ? windowGroup(w, i) : h('p', { class: 'note' }, `Window ${i + 1} is not an object: edit it in the document as JSON.`),
      ),
    );
    add.disabled = list.length >= MAX_WINDOWS;
  };
  add.addEventListener('click', () => {
    if (!Array.isArray(doc.windows)) doc.windows = [];
    (doc.windows as unknown[]).push({});
    showWindows();
    changed();
    windowsList.querySelector<HTMLInputElement>('fieldset.schedule-window:last-of-type input')?.focus();
  });

  const el = h(
    'div',
    { class: 'schedule-form' },
    h('label', { class: 'check' }, enabled, 'Enabled (off keeps the document and records nothing)'),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Place and time'),
      h('div', { class: 'schedule-row' }, field('Latitude', latitude), field('Longitude', longitude), field('Time zone', timeZone), zones),
      h('p', { class: 'hint' }, 'The location is needed by sun events only.'),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Segments'),
      h(
        'div',
        { class: 'schedule-row' },
        field('File type', format),
        field('Length (s)', segment),
        field('Sample rate (Hz)', rate),
        field('Channels', channels),
        field('Folder under recordings', directory),
        field('Device id', device),
      ),
    ),
    h('h3', {}, 'Windows'),
    h(
      'p',
      { class: 'hint' },
      'Start and end: a wall time (22:00) or a sun event with an optional offset (sunrise-30m, sunset+1h; ',
      `also ${SUN_EVENTS.filter((e) => e !== 'sunrise' && e !== 'sunset').join(', ')}). A window may cross midnight.`,
    ),
    sunEvents,
    windowsList,
    h('div', { class: 'buttons' }, add),
  );

  let zonesListed = false;
  timeZone.addEventListener('focus', () => {
    if (zonesListed) return;
    zonesListed = true;
    const names = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
    fill(zones, ...names.map((z) => h('option', { value: z })));
  });

  return {
    el,
    doc: () => doc,
    set(next: Doc) {
      doc = structuredClone(next);
      enabled.checked = doc.enabled !== false;
      const loc = isObject(doc.location) ? doc.location : {};
      latitude.value = shown(loc.latitude);
      longitude.value = shown(loc.longitude);
      timeZone.value = shown(doc.timeZone);
      const rec = isObject(doc.recording) ? doc.recording : {};
      format.value = typeof rec.fileExtension === 'string' ? rec.fileExtension : 'flac';
      segment.value = shown(rec.segmentSeconds);
      rate.value = shown(rec.sampleRate);
      channels.value = rec.channels === 2 ? '2' : '1';
      directory.value = shown(rec.directory);
      device.value = shown(rec.device);
      showWindows();
    },
    mark(path, describedBy) {
      for (const c of el.querySelectorAll('[aria-invalid]')) {
        c.removeAttribute('aria-invalid');
        c.removeAttribute('aria-describedby');
      }
      if (path === null) return;
      // The control of the path, or the first under it (`location`, `windows[1].duty`).
      const control = byPath.get(path) ?? [...byPath].find(([k]) => k.startsWith(`${path}.`) || k.startsWith(`${path}[`))?.[1];
      if (!control) return;
      control.setAttribute('aria-invalid', 'true');
      if (describedBy) control.setAttribute('aria-describedby', describedBy);
    },
  };
}

/** The field a refusal names: `windows[1].start: must be …` (a preview's `schedule.` taken off), else null. */
export function refusedPath(message: string): string | null {
  const m = /^(?:schedule\.)?([A-Za-z][A-Za-z0-9]*(?:\[\d+\]|\.[A-Za-z][A-Za-z0-9]*)*): /.exec(message);
  return m ? m[1]! : null;
}
