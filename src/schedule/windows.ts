// The window rules (docs/schedule.md, "Rules of time"): one pure function from a schedule,
// a range of dates and its zone to the merged recording periods. The recorder and the
// preview both call it, so the preview shows exactly what will be recorded.
import { DAYS, parseMonthDay, parsePoint, type Point, type Schedule } from './document.ts';
import { sunEventAt } from './sun.ts';
import { dateOfDay, ISO_BYTES, monthDay, weekday, type Zone, zoneNamed } from './zone.ts';

/** [start, end) in epoch milliseconds. */
export type Span = [number, number];

/** Windows that overlap or touch, merged: their whole extent and the union of their recording periods. */
export interface MergedWindow {
  start: number;
  end: number;
  on: Span[];
}

/** A window that would have started on `day` but whose sun event does not happen then. */
export interface Skip {
  day: number;
  window: number;
  reason: string;
}

interface CompiledWindow {
  start: Point;
  end: Point;
  weekdays: Set<number>;
  dates: [number, number] | null;
  duty: { on: number; off: number } | null;
}

/** A schedule made ready for the rules: points parsed, its zone's offsets cached. */
export interface Compiled {
  zone: Zone;
  location: { latitude: number; longitude: number } | null;
  windows: CompiledWindow[];
  /** Sun events by `<event>:<day>`: windows share them (sunrise-30m and sunrise+2h). */
  sun: Map<string, number | null>;
}

export function compile(s: Schedule): Compiled {
  return {
    zone: zoneNamed(s.timeZone)!,
    sun: new Map(),
    location: s.location,
    windows: s.windows.map((w) => ({
      start: parsePoint(w.start)!,
      end: parsePoint(w.end)!,
      weekdays: new Set(w.days.map((d) => DAYS.indexOf(d))),
      dates: w.dates && [parseMonthDay(w.dates.from)!, parseMonthDay(w.dates.to)!],
      duty: w.duty && { on: w.duty.onSeconds * 1000, off: w.duty.offSeconds * 1000 },
    })),
  };
}

/** The instant of a point on local day `day`, or null when its sun event does not happen that day. */
function pointAt(c: Compiled, p: Point, day: number): number | null {
  if (p.kind === 'wall') return c.zone.instantOf(day, p.minute);
  const key = `${p.event}:${day}`;
  let at = c.sun.get(key);
  if (at === undefined) {
    const { latitude, longitude } = c.location!;
    at = sunEventAt(p.event, c.zone.instantOf(day, 12 * 60), latitude, longitude);
    if (c.sun.size > 20_000) c.sun.clear(); // bounded: a recorder runs for months
    c.sun.set(key, at);
  }
  return at === null ? null : at + p.offsetMs;
}

function selected(w: CompiledWindow, day: number): boolean {
  if (!w.weekdays.has(weekday(day))) return false;
  if (!w.dates) return true;
  const { month, day: dom } = monthDay(day);
  const md = month * 100 + dom;
  const [from, to] = w.dates;
  return from <= to ? md >= from && md <= to : md >= from || md <= to; // a range may wrap the new year
}

const noEvent = (p: Point) => `no ${p.kind === 'sun' ? p.event : 'such time'} that day`;

/** Window `w`'s instance starting on `day`: its extent and recording periods, a skip, or null when not selected. */
function instance(c: Compiled, w: CompiledWindow, day: number): { start: number; end: number; on: Span[] } | string | null {
  if (!selected(w, day)) return null;
  const start = pointAt(c, w.start, day);
  if (start === null) return noEvent(w.start);
  let end = pointAt(c, w.end, day);
  if (end === null) return noEvent(w.end);
  // Two wall times, the end after the start by the clock (01:00-01:59): the same day, even
  // when a change to summer time skips both and they become one instant (no window that day,
  // not one of 23 hours).
  if (w.start.kind === 'wall' && w.end.kind === 'wall' && w.end.minute > w.start.minute && end <= start) return noEvent(w.start);
  // An end at or before its start is the next day's (a window across midnight is one
  // window); a start moved past the next day's end by its offset or its zone ends the day after.
  for (let next = day + 1; end <= start && next <= day + 2; next++) {
    end = pointAt(c, w.end, next);
    if (end === null) return noEvent(w.end);
  }
  if (end <= start) return null;
  if (!w.duty) return { start, end, on: [[start, end]] };
  const on: Span[] = [];
  for (let t = start; t < end; t += w.duty.on + w.duty.off) on.push([t, Math.min(t + w.duty.on, end)]);
  return { start, end, on };
}

/** Sorted spans, overlapping or touching ones merged, in place: the spans are the caller's own. */
function union(spans: Span[]): Span[] {
  if (spans.length < 2) return spans;
  spans.sort((a, b) => a[0] - b[0]);
  let n = 0;
  for (let i = 1; i < spans.length; i++) {
    const s = spans[i]!;
    const last = spans[n]!;
    if (s[0] <= last[1]) last[1] = Math.max(last[1], s[1]);
    else spans[++n] = s;
  }
  spans.length = n + 1;
  return spans;
}

/** Every instance of every window starting on local days [fromDay, toDay), merged, and the skips. */
export function windowsStarting(c: Compiled, fromDay: number, toDay: number): { windows: MergedWindow[]; skipped: Skip[] } {
  const instances: { start: number; end: number; on: Span[] }[] = [];
  const skipped: Skip[] = [];
  for (let day = fromDay; day < toDay; day++) {
    for (let index = 0; index < c.windows.length; index++) {
      const got = instance(c, c.windows[index]!, day);
      if (typeof got === 'string') skipped.push({ day, window: index, reason: got });
      else if (got) instances.push(got);
    }
  }
  // Merged in place: each instance and its spans are new, made above for this call only (a
  // year of 16 windows is ~30,000 spans, and copies of them were most of the collector's work).
  instances.sort((a, b) => a.start - b.start);
  const windows: MergedWindow[] = [];
  for (const i of instances) {
    const last = windows[windows.length - 1];
    if (last && i.start <= last.end) {
      last.end = Math.max(last.end, i.end);
      for (const span of i.on) last.on.push(span);
    } else windows.push(i);
  }
  for (const w of windows) w.on = union(w.on);
  return { windows, skipped };
}

// A window's start may lie a day from its date (an offset of up to 24 h), its end two days
// after it: instances are computed over these margins and merged before the range is cut.
const BEFORE = 2;
const AFTER = 2;

/**
 * The preview: the merged windows that begin on local days [fromDay, fromDay + days), and
 * the windows skipped on those days (their sun event does not happen).
 */
export function preview(c: Compiled, fromDay: number, days: number): { windows: MergedWindow[]; skipped: Skip[] } {
  const all = windowsStarting(c, fromDay - BEFORE, fromDay + days + AFTER);
  const inRange = (day: number) => day >= fromDay && day < fromDay + days;
  return {
    windows: all.windows.filter((w) => inRange(c.zone.dayOf(w.start))),
    skipped: all.skipped.filter((s) => inRange(s.day)),
  };
}

/** A preview as the API answers it (and the CLI prints it): times ISO 8601 in the schedule's zone, skipped windows by date. */
export function previewShown(c: Compiled, fromDay: number, days: number) {
  const p = preview(c, fromDay, days);
  return {
    windows: p.windows.map((w) => ({
      start: c.zone.iso(w.start),
      end: c.zone.iso(w.end),
      on: w.on.map(([a, b]) => [c.zone.iso(a), c.zone.iso(b)]),
    })),
    skipped: p.skipped.map((k) => ({ date: dateOfDay(k.day), window: k.window, reason: k.reason })),
  };
}

/**
 * previewShown's answer as JSON, byte for byte what JSON.stringify makes of it, but written
 * straight into one buffer and answered as those bytes: a year of 16 windows is ~17,000
 * periods, and their ~40,000 strings, arrays and objects, their serialisation and their
 * collection were most of the request's CPU; then turning the 1.3 MB of bytes into a string
 * and the string back into bytes for the socket was a quarter of it (docs/schedule.md,
 * "Preview"). Every byte is ASCII (the skipped windows' text is JSON.stringify's).
 */
export function previewJson(c: Compiled, fromDay: number, days: number): Buffer {
  const p = preview(c, fromDay, days);
  let periods = 0;
  for (const w of p.windows) periods += w.on.length;
  const skipped = JSON.stringify(p.skipped.map((k) => ({ date: dateOfDay(k.day), window: k.window, reason: k.reason })));
  const buf = Buffer.allocUnsafe(32 + p.windows.length * (2 * ISO_BYTES + 40) + periods * (2 * ISO_BYTES + 10) + skipped.length);
  const zone = c.zone;
  let at = 0;
  const put = (text: string) => {
    for (let i = 0; i < text.length; i++) buf[at++] = text.charCodeAt(i);
  };
  put('{"windows":[');
  for (let i = 0; i < p.windows.length; i++) {
    const w = p.windows[i]!;
    put(i === 0 ? '{"start":"' : ',{"start":"');
    at = zone.isoInto(w.start, buf, at);
    put('","end":"');
    at = zone.isoInto(w.end, buf, at);
    put('","on":[');
    for (let j = 0; j < w.on.length; j++) {
      const [a, b] = w.on[j]!;
      if (j > 0) buf[at++] = 44; // ,
      buf[at++] = 91; // [
      buf[at++] = 34; // "
      at = zone.isoInto(a, buf, at);
      put('","');
      at = zone.isoInto(b, buf, at);
      buf[at++] = 34;
      buf[at++] = 93; // ]
    }
    put(']}');
  }
  put('],"skipped":');
  at += buf.write(skipped, at, 'latin1');
  buf[at++] = 125; // }
  return buf.subarray(0, at);
}

/** What the schedule says at instant `now`: the merged window under way, the period recording now, the next window. */
export interface Moment {
  window: MergedWindow | null;
  on: Span | null;
  next: MergedWindow | null;
}

const LOOKAHEAD_DAYS = 400; // a window limited to some dates may be most of a year away

export function momentAt(c: Compiled, now: number): Moment {
  const today = c.zone.dayOf(now);
  const near = windowsStarting(c, today - BEFORE - 1, today + AFTER + 1).windows;
  const window = near.find((w) => w.start <= now && now < w.end) ?? null;
  const on = window?.on.find(([s, e]) => s <= now && now < e) ?? null;
  let next = near.find((w) => w.start > now) ?? null;
  for (let day = today + AFTER + 1; !next && day < today + LOOKAHEAD_DAYS; day += 8) {
    next = windowsStarting(c, day, day + 8).windows.find((w) => w.start > now) ?? null;
  }
  return { window, on, next };
}
