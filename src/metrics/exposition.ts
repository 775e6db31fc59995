// The Prometheus text exposition format 0.0.4, written by hand (prom-client measured
// +6.5 MB RSS and ~25 ms load for a handful of series: docs/decisions.md). The format's rules:
// https://prometheus.io/docs/instrumenting/exposition_formats/#text-format-details

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'counter' | 'gauge' | 'histogram';

/** HELP text: backslash and line feed escaped. */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A label value: backslash, double quote and line feed escaped. */
export function escapeLabel(value: string): string {
  return /[\\"\n]/.test(value) ? value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`)) : value;
}

/** `{a="x",b="y"}` for names and values side by side; '' for no labels. */
export function labelText(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return '';
  return `{${names.map((n, i) => `${n}="${escapeLabel(values[i] ?? '')}"`).join(',')}}`;
}

/** A sample value as the format spells it (Go's ParseFloat reads these). */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** The two comment lines that open a metric family. */
export function header(name: string, help: string, type: MetricType): string {
  return `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}\n`;
}
