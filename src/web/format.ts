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
