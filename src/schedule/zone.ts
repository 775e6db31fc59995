// A time zone through Intl alone (no tz library): the offset at an instant, cached per UTC
// day with the exact instant of a change found once; wall times of a date as instants by
// the schedule's rules (docs/schedule.md, "Rules of time": a skipped wall time is the first
// instant after the gap, a repeated one its first occurrence); dates as day numbers.
import { isoTime } from '../util/time.ts';

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const BLOCK_DAYS = 8;

/** The device's own zone (the process's, from TZ or /etc/localtime). */
export function deviceZoneName(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
}

const zones = new Map<string, Zone>();

/** The zone named `name` (one instance per name: its offsets stay cached), or null when Intl does not know it. */
export function zoneNamed(name: string): Zone | null {
  let zone = zones.get(name);
  if (zone) return zone;
  try {
    zone = new Zone(name);
  } catch {
    return null; // RangeError: not a zone Intl knows
  }
  if (zones.size > 64) zones.clear();
  zones.set(name, zone);
  return zone;
}

/** True when Intl knows `name` as a time zone. */
export const isZoneName = (name: string): boolean => zoneNamed(name) !== null;

type DayOffsets = { offset: number } | { at: number; before: number; after: number };

export class Zone {
  readonly name: string;
  readonly #format: Intl.DateTimeFormat;
  readonly #days = new Map<number, DayOffsets>();

  constructor(name: string) {
    this.#format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    this.name = this.#format.resolvedOptions().timeZone;
  }

  /** Offset (ms, local minus UTC) at `ms`, straight from Intl (whole seconds). */
  #rawOffset(ms: number): number {
    const s = Math.floor(ms / 1000) * 1000;
    const p = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
    for (const part of this.#format.formatToParts(s)) if (part.type in p) p[part.type as keyof typeof p] = Number(part.value);
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - s;
  }

  /** Offset (ms, local minus UTC) in force at instant `ms`. */
  offsetAt(ms: number): number {
    const day = Math.floor(ms / DAY_MS);
    let known = this.#days.get(day);
    if (!known) {
      this.#measureBlock(day - (((day % BLOCK_DAYS) + BLOCK_DAYS) % BLOCK_DAYS));
      known = this.#days.get(day)!;
    }
    if ('offset' in known) return known.offset;
    return ms < known.at ? known.before : known.after;
  }

  /**
   * Fills the cache for the BLOCK_DAYS UTC days from `first`: one offset for them all when
   * it is the same at both ends (zones change months apart), else day by day. Two Intl
   * calls a week rather than a day: the preview of a year is ~10x faster (docs/schedule.md).
   */
  #measureBlock(first: number) {
    if (this.#days.size > 4096) this.#days.clear(); // a long-running recorder: bounded memory
    const lo = this.#rawOffset(first * DAY_MS);
    const hi = this.#rawOffset((first + BLOCK_DAYS) * DAY_MS - 1000);
    for (let day = first; day < first + BLOCK_DAYS; day++) this.#days.set(day, lo === hi ? { offset: lo } : this.#measureDay(day));
  }

  /** A UTC day's offsets: one, or the instant (whole second) of its change. Zones change at most once a day. */
  #measureDay(day: number): DayOffsets {
    const lo = day * DAY_MS;
    const before = this.#rawOffset(lo);
    const after = this.#rawOffset(lo + DAY_MS - 1000);
    if (before === after) return { offset: before };
    let a = lo; // offset here is `before`
    let b = lo + DAY_MS - 1000; // offset here is `after`
    while (b - a > 1000) {
      const mid = a + Math.floor((b - a) / 2000) * 1000;
      if (this.#rawOffset(mid) === before) a = mid;
      else b = mid;
    }
    return { at: b, before, after };
  }

  /** The instant of wall time `minute` (minutes after midnight) on local day `day` (days since 1970-01-01). */
  instantOf(day: number, minute: number): number {
    const wall = day * DAY_MS + minute * 60_000;
    const early = this.offsetAt(wall - 14 * HOUR_MS);
    const late = this.offsetAt(wall + 14 * HOUR_MS);
    const fits = (t: number) => t + this.offsetAt(t) === wall;
    // A repeated wall time (clocks back) fits both offsets: its first occurrence is the larger offset's.
    const candidates = [wall - Math.max(early, late), wall - Math.min(early, late)];
    for (const t of candidates) if (fits(t)) return t;
    // Skipped by a change forward: the first instant after the gap, i.e. the change itself.
    let a = wall - Math.max(early, late);
    let b = wall - Math.min(early, late);
    const first = this.offsetAt(a);
    while (b - a > 1000) {
      const mid = a + Math.floor((b - a) / 2000) * 1000;
      if (this.offsetAt(mid) === first) a = mid;
      else b = mid;
    }
    return b;
  }

  /** Local day number (days since 1970-01-01) of instant `ms`. */
  dayOf(ms: number): number {
    return Math.floor((ms + this.offsetAt(ms)) / DAY_MS);
  }

  /** The last local day isoInto() wrote, with its offset: its date (`YYYY-MM-DDT`) and zone bytes, made once. */
  #isoDay = { day: Number.NaN, offset: Number.NaN, date: [] as number[], zone: [] as number[] };

  /**
   * ISO 8601 with this zone's offset, whole seconds (`2026-03-29T02:00:00+01:00`), written
   * into `buf` at `at` (ASCII, at most ISO_BYTES); returns the offset after it. A preview
   * writes tens of thousands in order, most on the day of the one before: a day's date and
   * offset are made once, the time from its digits (src/schedule/windows.ts, previewJson).
   */
  isoInto(ms: number, buf: Uint8Array, at: number): number {
    const off = this.offsetAt(ms);
    const local = Math.floor(ms / 1000) * 1000 + off;
    const day = Math.floor(local / DAY_MS);
    const cached = this.#isoDay;
    if (cached.day !== day || cached.offset !== off) {
      cached.day = day;
      cached.offset = off;
      cached.date = ascii(`${isoTime(day * DAY_MS).slice(0, 10)}T`);
      cached.zone = ascii(zoneText(off));
    }
    for (const b of cached.date) buf[at++] = b;
    let sec = (local - day * DAY_MS) / 1000;
    const hh = Math.floor(sec / 3600);
    sec -= hh * 3600;
    const mm = Math.floor(sec / 60);
    sec -= mm * 60;
    buf[at++] = 48 + Math.floor(hh / 10);
    buf[at++] = 48 + (hh % 10);
    buf[at++] = 58; // :
    buf[at++] = 48 + Math.floor(mm / 10);
    buf[at++] = 48 + (mm % 10);
    buf[at++] = 58;
    buf[at++] = 48 + Math.floor(sec / 10);
    buf[at++] = 48 + (sec % 10);
    for (const b of cached.zone) buf[at++] = b;
    return at;
  }

  /** isoInto's text as a string. */
  iso(ms: number): string {
    return ISO_SCRATCH.toString('latin1', 0, this.isoInto(ms, ISO_SCRATCH, 0));
  }
}

/** Bytes of the longest iso(): `2026-03-29T02:00:00+01:00`. */
export const ISO_BYTES = 25;
const ISO_SCRATCH = Buffer.alloc(ISO_BYTES);

const ascii = (text: string): number[] => Array.from(text, (ch) => ch.charCodeAt(0));

/** An offset as ISO 8601 writes it: `Z`, `+01:00`, `-03:30`. */
function zoneText(off: number): string {
  if (off === 0) return 'Z';
  const abs = Math.abs(off) / 60_000;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${off < 0 ? '-' : '+'}${two(Math.floor(abs / 60))}:${two(Math.floor(abs % 60))}`;
}

/** Day number of `YYYY-MM-DD` (null when not a real date). */
export function dayOfDate(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return ms / DAY_MS;
}

/** `YYYY-MM-DD` of a day number. */
export const dateOfDay = (day: number): string => isoTime(day * DAY_MS).slice(0, 10);

/** Month (1–12) and day of month of a day number. */
export function monthDay(day: number): { month: number; day: number } {
  const d = new Date(day * DAY_MS);
  return { month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** Weekday of a day number: 0 Sunday … 6 Saturday (1970-01-01 was a Thursday). */
export const weekday = (day: number): number => (((day + 4) % 7) + 7) % 7;
