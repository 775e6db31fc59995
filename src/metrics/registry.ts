// A tiny metrics registry: counters with pre-created cells, gauges read at scrape time,
// histograms with fixed buckets. Counting is a property increment on a cell the caller
// keeps; all formatting happens at scrape time (exposition.ts). A scrape pushes parts
// made once (header, `name{labels} `) and the numbers into one array joined once: text
// built by `+=` grows the young generation by ~6 MB over 10,000 scrapes
// (bench/metrics.mjs) with the cons strings of ~700 concatenations each.
// The `name{labels} ` parts are made at the first scrape, not when a series is created:
// made at start for every route's histogram (~550 label texts), they got V8's Maglev
// compiler running in an idle agent and cost 3.1 MB of idle RSS (docs/performance.md).
import { formatValue, header, labelText } from './exposition.ts';

/** One time series of a counter: the caller keeps it and adds to `value`. */
export interface Cell {
  value: number;
}

/** The parts of a scrape's text, in order. */
type Out = string[];

interface Family {
  render(out: Out): void;
}

/** A transfer's two figures: things moved (files) and their content bytes. */
export interface Counted {
  files: Cell;
  bytes: Cell;
}

interface CounterCell extends Cell {
  readonly values: readonly string[];
  prefix?: string;
}

export class Counter {
  private readonly cells = new Map<string, CounterCell>();
  private readonly header: string;

  constructor(
    readonly name: string,
    help: string,
    readonly labelNames: readonly string[] = [],
  ) {
    this.header = header(name, help, 'counter');
    if (labelNames.length === 0) this.cell();
  }

  /** The series for these label values, created once (exported from then on, 0 or not). */
  cell(...values: string[]): Cell {
    const key = values.join('\u0000');
    let c = this.cells.get(key);
    if (!c) this.cells.set(key, (c = { value: 0, values }));
    return c;
  }

  /** Every labelled series dropped (a feature turned off by a reload: its series go). */
  clear(): void {
    if (this.labelNames.length > 0) this.cells.clear();
  }

  render(out: Out): void {
    if (this.cells.size === 0) return; // no series yet (or dropped by a reload): no family either
    out.push(this.header);
    for (const c of this.cells.values()) {
      c.prefix ??= `${this.name}${labelText(this.labelNames, c.values)} `;
      out.push(c.prefix, formatValue(c.value), '\n');
    }
  }
}

/**
 * A value read when scraped; `undefined` leaves the series out. Also a counter kept
 * elsewhere (process CPU time, TLS handshake failures): `type` 'counter'.
 */
export class Sampled {
  private readonly header: string;
  private readonly prefix: string;

  constructor(
    readonly name: string,
    help: string,
    labelNames: readonly string[],
    labelValues: readonly string[],
    private readonly read: () => number | undefined,
    type: 'gauge' | 'counter' = 'gauge',
  ) {
    this.header = header(name, help, type);
    this.prefix = `${name}${labelText(labelNames, labelValues)} `;
  }

  render(out: Out): void {
    const value = this.read();
    if (value !== undefined) out.push(this.header, this.prefix, formatValue(value), '\n');
  }
}

/** One histogram series: counts per bucket (not cumulative until rendered), sum, count. */
export class HistogramCell {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  /** `name_bucket{...,le="..."} ` per bucket (+Inf last), then `name_sum{...} `, `name_count{...} `: made by the first render. */
  private prefixes: string[] | undefined;

  constructor(
    private readonly bounds: readonly number[],
    private readonly name: string,
    private readonly names: readonly string[],
    private readonly values: readonly string[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  private makePrefixes(): string[] {
    const { name, names, values } = this;
    const withLe = [...names, 'le'];
    const own = labelText(names, values);
    return [
      ...[...this.bounds.map(formatValue), '+Inf'].map((le) => `${name}_bucket${labelText(withLe, [...values, le])} `),
      `${name}_sum${own} `,
      `${name}_count${own} `,
    ];
  }

  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    if (i < b.length) this.counts[i]! += 1;
    this.sum += v;
    this.count += 1;
  }

  render(out: Out): void {
    const prefixes = (this.prefixes ??= this.makePrefixes());
    const n = this.counts.length;
    let cumulative = 0;
    for (let i = 0; i < n; i++) {
      cumulative += this.counts[i]!;
      out.push(prefixes[i]!, formatValue(cumulative), '\n');
    }
    out.push(
      prefixes[n]!,
      formatValue(this.count),
      '\n',
      prefixes[n + 1]!,
      formatValue(this.sum),
      '\n',
      prefixes[n + 2]!,
      formatValue(this.count),
      '\n',
    );
  }
}

export class Histogram {
  private readonly cells: HistogramCell[] = [];
  private readonly header: string;

  constructor(
    readonly name: string,
    help: string,
    readonly labelNames: readonly string[],
    readonly bounds: readonly number[],
  ) {
    this.header = header(name, help, 'histogram');
  }

  /** A new series for these label values (the caller keeps it; one per label set). */
  cell(...values: string[]): HistogramCell {
    const c = new HistogramCell(this.bounds, this.name, this.labelNames, values);
    this.cells.push(c);
    return c;
  }

  render(out: Out): void {
    out.push(this.header);
    for (const c of this.cells) c.render(out);
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
    const out: Out = [];
    for (const f of this.families) f.render(out);
    return out.join('');
  }
}
