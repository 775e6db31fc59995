// The hand-written exposition format (src/metrics/): escaping, histograms, bounded labels.
import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { escapeHelp, escapeLabel, formatValue, labelText } from '../src/metrics/exposition.ts';
import { HttpMetrics } from '../src/metrics/http.ts';
import { Counter, Histogram, Registry } from '../src/metrics/registry.ts';

const text = suite('exposition format');

text('escapes backslash, double quote and line feed in label values', () => {
  assert.is(escapeLabel('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
  assert.is(escapeLabel('/api/v1/health'), '/api/v1/health');
  assert.is(labelText(['route', 'method'], ['/x"y', 'GET']), '{route="/x\\"y",method="GET"}');
  assert.is(labelText([], []), '');
});

text('escapes backslash and line feed in HELP, not quotes', () => {
  assert.is(escapeHelp('a\\b\n"c"'), 'a\\\\b\\n"c"');
});

text('spells infinities and NaN as the format does', () => {
  assert.equal([Infinity, -Infinity, NaN, 0.25, 3].map(formatValue), ['+Inf', '-Inf', 'NaN', '0.25', '3']);
});

text('a counter exports its cells, zero or not, each once', () => {
  const r = new Registry();
  const c = r.add(new Counter('x_total', 'Things', ['kind']));
  c.cell('a').value += 2;
  c.cell('b');
  c.cell('a').value += 1;
  assert.is(r.render(), '# HELP x_total Things\n# TYPE x_total counter\nx_total{kind="a"} 3\nx_total{kind="b"} 0\n');
});

text('a histogram is cumulative, bounds inclusive, with +Inf, _sum and _count', () => {
  const r = new Registry();
  const h = r.add(new Histogram('d_seconds', 'Durations', ['route'], [0.1, 1]));
  const cell = h.cell('/r');
  for (const v of [0.05, 0.1, 0.5, 2, 3]) cell.observe(v);
  assert.is(
    r.render(),
    [
      '# HELP d_seconds Durations',
      '# TYPE d_seconds histogram',
      'd_seconds_bucket{route="/r",le="0.1"} 2',
      'd_seconds_bucket{route="/r",le="1"} 3',
      'd_seconds_bucket{route="/r",le="+Inf"} 5',
      'd_seconds_sum{route="/r"} 5.65',
      'd_seconds_count{route="/r"} 5',
      '',
    ].join('\n'),
  );
});

text('promtool reads escaped label values and HELP texts back', () => {
  const r = new Registry();
  r.add(new Counter('odd_total', 'Help with \\ and\na second line', ['v'])).cell('quote " backslash \\ newline \n end').value = 1;
  const h = r.add(new Histogram('odd_seconds', 'Durations', ['route'], [0.001, 1]));
  h.cell('/a"b').observe(0.5);
  const out = spawnSync('/usr/bin/promtool', ['check', 'metrics'], { input: r.render(), encoding: 'utf8' });
  assert.is(out.status, 0, `${out.stdout}${out.stderr}\n${r.render()}`);
});

text.run();

const http = suite('request labels');

http('an undeclared route, an odd method and no answer get bounded labels', () => {
  const r = new Registry();
  const m = new HttpMetrics(r);
  m.declare(['/api/v1/health']);
  m.observe('/api/v1/health', 'GET', 200, 0.3);
  m.observe(undefined, 'PROPFIND', 404, 1);
  m.observe('/never/declared', 'GET', 404, 1);
  m.observe('/api/v1/health', 'GET', 0, 2);
  const out = r.render();
  assert.match(out, /^device_agent_http_requests_total\{route="\/api\/v1\/health",method="GET",status="200"\} 1$/m);
  assert.match(out, /^device_agent_http_requests_total\{route="unmatched",method="OTHER",status="404"\} 1$/m);
  assert.match(out, /^device_agent_http_requests_total\{route="unmatched",method="GET",status="404"\} 1$/m);
  assert.match(out, /^device_agent_http_requests_total\{route="\/api\/v1\/health",method="GET",status="000"\} 1$/m);
  assert.not.match(out, /never/);
  assert.match(out, /^device_agent_http_request_duration_seconds_count\{route="\/api\/v1\/health"\} 2$/m);
  assert.match(out, /^device_agent_http_request_duration_seconds_sum\{route="\/api\/v1\/health"\} 0.0023$/m);
});

http.run();
