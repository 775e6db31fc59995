// The log writer: each line stamped with its own millisecond and prefixed with its journald
// priority, one write per event-loop turn.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../src/util/logger.ts';
import { pathOf, tenths } from '../src/http/log.ts';

const t = suite('logger');
const turn = () => new Promise((r) => setImmediate(r));

t('lines of one turn go out in one write, each with the time it was logged', async () => {
  const writes: string[] = [];
  const logger = createLogger((c) => writes.push(c));
  const before = Date.now();
  logger.info('a');
  logger.info('b');
  assert.is(writes.length, 0, 'nothing written before the turn ends');
  await turn();
  assert.is(writes.length, 1);
  const lines = writes[0]!.split('\n');
  assert.is(lines.length, 3);
  assert.is(lines[2], '');
  for (const [i, text] of ['a', 'b'].entries()) {
    const m = /^<6>(\S+) (.*)$/.exec(lines[i]!)!;
    assert.is(m[2], text);
    const at = Date.parse(m[1]!);
    assert.is(new Date(at).toISOString(), m[1]);
    assert.ok(at >= before && at <= Date.now());
  }
  // A later line gets a later stamp, not the cached one.
  await new Promise((r) => setTimeout(r, 5));
  const later = Date.now();
  logger.info('c');
  await turn();
  assert.ok(Date.parse(writes[1]!.slice(3).split(' ')[0]!) >= later);
});

t('a full batch is written at once; flush() writes what is pending', () => {
  const writes: string[] = [];
  const logger = createLogger((c) => writes.push(c), 100);
  for (let i = 0; i < 5; i++) logger.info('x'.repeat(30));
  assert.ok(writes.length >= 1, 'written when the batch passed its size');
  logger.warn('tail');
  logger.flush();
  assert.ok(writes.at(-1)!.endsWith(' tail\n'));
  const n = writes.length;
  logger.flush();
  assert.is(writes.length, n, 'an empty flush writes nothing');
});

t('each line starts with its priority: <3> error, <4> warning, <6> info; a multi-line text carries it on every line', async () => {
  const writes: string[] = [];
  const logger = createLogger((c) => writes.push(c));
  logger.error('broken');
  logger.warn('degraded');
  logger.info('fine');
  logger.error('Error: boom\n    at f (x.ts:1:2)\n    at g (y.ts:3:4)');
  await turn();
  const lines = writes.join('').split('\n').slice(0, -1);
  const stamp = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
  const expected = [
    `^<3>${stamp} broken$`,
    `^<4>${stamp} degraded$`,
    `^<6>${stamp} fine$`,
    `^<3>${stamp} Error: boom$`,
    '^<3>        at f \\(x\\.ts:1:2\\)$',
    '^<3>        at g \\(y\\.ts:3:4\\)$',
  ];
  assert.is(lines.length, expected.length, lines.join('\n'));
  for (const [i, re] of expected.entries()) assert.match(lines[i]!, new RegExp(re));
});

t('a log path never carries spaces, quotes, control characters or the query', () => {
  assert.is(pathOf('/api/download?filepath=secret'), '/api/download');
  assert.is(pathOf('/a b"c\\d\u0001\u007f\u0085'), '/a%20b%22c%5cd%01%7f%85');
  assert.is(pathOf('/plain/path'), '/plain/path');
  assert.is(pathOf('/' + 'x'.repeat(600)).length, 512);
});

t('milliseconds are logged rounded to one decimal', () => {
  for (const [ms, text] of [
    [0, '0.0'],
    [0.04, '0.0'],
    [0.05, '0.1'],
    [12.34, '12.3'],
    [9.96, '10.0'],
    [123456.78, '123456.8'],
  ] as const) {
    assert.is(tenths(ms), text, String(ms));
  }
  for (let i = 0; i < 1000; i++) {
    const ms = Math.random() * 10 ** (i % 7);
    assert.ok(Math.abs(Number(tenths(ms)) - ms) <= 0.05 + 1e-9, `${ms} -> ${tenths(ms)}`);
    assert.match(tenths(ms), /^\d+\.\d$/);
  }
});

t.run();
