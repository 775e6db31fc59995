// A tiny metrics registry: counters with pre-created cells, gauges read at scrape time,
// histograms with fixed buckets. Counting is a property increment on a cell the caller
// keeps; all formatting happens at scrape time (exposition.ts).
import { formatValue, header, labelText } from './exposition.ts';

/** One time series of a counter: the caller keeps it and adds to `value`. */
export interface Cell { value: number }

interface Family { render(): string }

/** A transfer's two figures: things moved (files) and their content bytes. */
export interface Counted { files: Cell; bytes: Cell }

export class Counter {
  private readonly cells = new Map<string, Cell & { labels: string }>();

  constructor(readonly name: string, readonly help: string, readonly labelNames: readonly string[] = []) {
    if (labelNames.length === 0) this.cell();
  }

  /** The series for these label values, created once (exported from then on, 0 or not). */
  cell(...values: string[]): Cell {
    const key = values.join('\u0000');
    let c = this.cells.get(key);
    if (!c) this.cells.set(key, (c = { value: 0, labels: labelText(this.labelNames, values) }));
    return c;
  }

  inc(n = 1): void { this.cell().value += n; }

  render(): string {
    let out = header(this.name, this.help, 'counter');
    for (const c of this.cells.values()) out += `${this.name}${c.labels} ${formatValue(c.value)}\n`;
    return out;
  }
}

/**
 * A value read when scraped; `undefined` leaves a series out. Also a counter kept
 * elsewhere (process CPU time, TLS handshake failures): `type` 'counter'.
 */
export class Sampled {
  constructor(readonly name: string, readonly help: string, readonly labelNames: readonly string[],
    private readonly read: () => Array<[labels: readonly string[], value: number | undefined]>,
    private readonly type: 'gauge' | 'counter' = 'gauge') {}

  render(): string {
    let out = '';
    for (const [labels, value] of this.read()) {
      if (value !== undefined) out += `${this.name}${labelText(this.labelNames, labels)} ${formatValue(value)}\n`;
    }
    return out === '' ? '' : header(this.name, this.help, this.type) + out;
  }
}

/** One histogram series: counts per bucket (not cumulative until rendered), sum, count. */
export class HistogramCell {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[], readonly labels: readonly string[]) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    if (i < b.length) this.counts[i]! += 1;
    this.sum += v;
    this.count += 1;
  }
}

export class Histogram {
  private readonly cells: HistogramCell[] = [];
  private readonly les: string[];

  constructor(readonly name: string, readonly help: string, readonly labelNames: readonly string[], readonly bounds: readonly number[]) {
    this.les = bounds.map(formatValue);
  }

  /** A new series for these label values (the caller keeps it; one per label set). */
  cell(...values: string[]): HistogramCell {
    const c = new HistogramCell(this.bounds, values);
    this.cells.push(c);
    return c;
  }

  render(): string {
    const names = [...this.labelNames, 'le'];
    let out = header(this.name, this.help, 'histogram');
    for (const c of this.cells) {
      let cumulative = 0;
      for (let i = 0; i < this.les.length; i++) {
        cumulative += c.counts[i]!;
        out += `${this.name}_bucket${labelText(names, [...c.labels, this.les[i]!])} ${cumulative}\n`;
      }
      const base = labelText(this.labelNames, c.labels);
      out += `${this.name}_bucket${labelText(names, [...c.labels, '+Inf'])} ${c.count}\n`;
      out += `${this.name}_sum${base} ${formatValue(c.sum)}\n${this.name}_count${base} ${c.count}\n`;
    }
    return out;
  }
}

/** The families in the order they are exposed. */
export class Registry {
  private readonly families: Family[] = [];

  add<F extends Family>(family: F): F {
    this.families.push(family);
    return family;
  }

  render(): string {
    let out = '';
    for (const f of this.families) out += f.render();
    return out;
  }
}
