// Text for people: sizes, durations, tables, progress.

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '-';
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = -1;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0)} ${units[i]}`;
}

export function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

/** Columns padded to their widest cell; the header row first. */
export function table(rows: Array<Array<string | number | null | undefined>>): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))));
  const widths: number[] = [];
  for (const r of cells)
    r.forEach((c, i) => {
      widths[i] = Math.max(widths[i] ?? 0, c.length);
    });
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** A progress bar on a terminal (standard error): bytes, rate and time left, redrawn at most 10 times a second. */
export class ProgressBar {
  private readonly started = Date.now();
  private last = 0;
  private bytes = 0;
  private total: number | null = null;

  constructor(
    private readonly label: string,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  update = (p: { bytes: number; total: number | null }): void => {
    this.bytes = p.bytes;
    this.total = p.total;
    const now = Date.now();
    if (now - this.last < 100) return;
    this.last = now;
    this.draw();
  };

  private draw(): void {
    const secs = Math.max((Date.now() - this.started) / 1000, 0.001);
    const rate = this.bytes / secs;
    const total = this.total;
    const pct = total ? Math.min(this.bytes / total, 1) : 0;
    const left = total && rate > 0 ? (total - this.bytes) / rate : null;
    const figures =
      `${bytes(this.bytes)}${total ? ` / ${bytes(total)}` : ''}  ${bytes(rate)}/s` +
      (left !== null && this.bytes < (total ?? 0) ? `  ${duration(left)} left` : `  ${duration(secs)}`);
    const cols = this.out.columns || 80;
    const name = this.label.length > 24 ? `…${this.label.slice(-23)}` : this.label;
    const width = Math.max(10, Math.min(30, cols - name.length - figures.length - 12));
    const filled = Math.round(pct * width);
    const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(pct * 100)).padStart(3)}%`;
    this.out.write(`\r\x1b[K${name}  ${bar}  ${figures}`);
  }

  /** The last state drawn, left on the screen. */
  done(): void {
    this.draw();
    this.out.write('\n');
  }

  /** Removes the bar (the transfer failed: the error line follows). */
  clear(): void {
    this.out.write('\r\x1b[K');
  }
}
