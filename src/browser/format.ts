// Figures as people read them: binary units, percentages, durations, local times.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  let v = n;
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${UNITS[i]}`;
}

export const percent = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${v.toFixed(1)} %`);

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86400);
  const hh = Math.floor((s % 86400) / 3600);
  const mm = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d} d ${hh} h`;
  if (hh > 0) return `${hh} h ${mm} min`;
  if (mm > 0) return `${mm} min ${s % 60} s`;
  return `${seconds < 10 ? seconds.toFixed(1) : s} s`;
}

const LONG = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const SHORT = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'short' });

/** A local date and time; `short` for table cells (a 360 px screen has room for little). */
export function when(iso: string | null | undefined, short = false): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : (short ? SHORT : LONG).format(d);
}

/**
 * Bidirectional controls: the embeddings and overrides (U+202A-U+202E), the isolates
 * (U+2066-U+2069) and the marks (U+200E, U+200F, U+061C). In a file name they reorder what
 * is shown: `rtl<U+202E>gnp.exe` reads as `rtlexe.png`, and `<bdi>` does not help (the
 * override still reverses the text inside it).
 */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** A name with each bidirectional control shown as `<U+202E>`, as GitHub and VS Code mark them. */
export function visibleName(name: string): string {
  return name.replace(BIDI, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);
}
