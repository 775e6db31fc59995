// A test generated from the served document (src/ops/operation.ts declares it): for every
// operation, its minimal input is accepted, and each missing required input, each broken
// constraint and each undeclared body field is refused with 400 and the exact text the
// document declares (`x-error`, `x-missing-error`). An operation written without a
// declaration has no such texts and fails here, unless it is a stream listed below.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { type DocOperation as Op, documentOperations, type Schema, STREAMS } from './helpers/operations.ts';

type Ctx = { agent: TestAgent; token: string; ops: Op[] };
const declared = suite<Ctx>('operations as declared in the document');

declared.before(async (ctx) => {
  ctx.agent = await startAgent();
  mkdirSync(join(ctx.agent.baseDir, 'example'));
  writeFileSync(join(ctx.agent.baseDir, 'example.txt'), 'x');
  ctx.token = await ctx.agent.login();
  ctx.ops = documentOperations(await (await fetch(`${ctx.agent.url}/docs/openapi.json`)).json());
});
declared.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

/** A value the schema accepts: its first example, enum value, the lowest in range, or `example`. */
function sample(s: Schema): unknown {
  if (s.examples?.length) return s.examples[0];
  if (s.enum) return s.enum.find((v: unknown) => v !== null);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  if (type === 'integer' || type === 'number') return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
  if (type === 'boolean') return false;
  if (type === 'array') return [sample(s.items)];
  return 'example';
}

/** Values the schema refuses, each by one constraint; `text`: as a query spells them. */
function broken(s: Schema, text: boolean): unknown[] {
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  const out: unknown[] = [];
  if (s.enum) out.push('__none__', ...(text ? [] : [7]));
  if (type === 'string') {
    if (!text) out.push(5, true);
    if (s.pattern) out.push(...['', ' ', 'a b', '!'.repeat(300)].filter((v) => !new RegExp(s.pattern).test(v)).slice(0, 1));
    if (s.minLength) out.push('');
    if (s.maxLength !== undefined) out.push('x'.repeat(s.maxLength + 1));
  }
  if (type === 'integer' || type === 'number') {
    out.push('abc');
    if (s.minimum !== undefined) out.push(s.minimum - 1);
    if (s.exclusiveMinimum !== undefined) out.push(s.exclusiveMinimum);
    if (s.maximum !== undefined) out.push(s.maximum + 1);
    if (type === 'integer') out.push((s.minimum ?? 1) + 0.5);
  }
  if (type === 'boolean') out.push(text ? 'maybe' : 'yes');
  if (type === 'array') out.push('x', [], ['__none__']);
  return out.map((v) => (text ? String(v) : v));
}

async function call(ctx: Ctx, op: Op, query: Record<string, unknown>, body?: unknown) {
  const path = op.path.replace(/\{\w+\}/g, 'example');
  const q = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const res = await fetch(`${ctx.agent.url}${path}${q ? `?${q}` : ''}`, {
    method: op.method,
    headers: { Authorization: `Bearer ${ctx.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, error: text.startsWith('{') ? (JSON.parse(text).error as string | undefined) : undefined };
}

const minimal = (fields: Record<string, Schema>, required: (name: string) => boolean) =>
  Object.fromEntries(
    Object.entries(fields)
      .filter(([name]) => required(name))
      .map(([name, s]) => [name, sample(s)]),
  );

declared('every operation that is not a stream declares the 400 text of each of its inputs', async ({ ops }) => {
  for (const op of ops) {
    if (STREAMS.has(op.id)) continue;
    for (const [name, s] of Object.entries(op.query)) assert.type(s['x-error'], 'string', `${op.id}: query ${name} has no declared error`);
    if (op.method !== 'GET' && op.method !== 'DELETE' && op.id !== 'recordStop' && op.id !== 'outboxRetry')
      assert.ok(op.body, `${op.id}: no declared body`);
    if (!op.body) continue;
    // A whole document checked by its own function (the schedule): its texts name a path, listed under the 400.
    if (op.body['x-document'] === true) continue;
    assert.is(op.body.additionalProperties, false, `${op.id}: open body`);
    assert.type(op.body['x-error'], 'string', `${op.id}: no text for an undeclared field`);
    for (const [name, s] of Object.entries(op.body.properties as Record<string, Schema>)) {
      assert.type(s['x-error'], 'string', `${op.id}: body field ${name} has no declared error`);
    }
  }
});

declared('minimal input accepted; each missing, broken or undeclared input refused with the declared text', async (ctx) => {
  let checks = 0;
  for (const op of ctx.ops) {
    // A whole document's checks are its own (test/schedule-record.test.ts, test/unit-schedule-document.test.ts).
    if (STREAMS.has(op.id) || op.body?.['x-document'] === true) continue;
    const query = minimal(op.query, (n) => op.query[n]!.required);
    const props = (op.body?.properties ?? {}) as Record<string, Schema>;
    const needed = new Set<string>(op.body?.required ?? []);
    const body = op.body ? minimal(props, (n) => needed.has(n)) : undefined;
    const ok = await call(ctx, op, query, body);
    assert.ok(ok.status !== 400 && ok.status < 500, `${op.id}: minimal input ${JSON.stringify({ query, body })}: ${ok.status} ${ok.error}`);

    const refused = async (what: string, q: Record<string, unknown>, b: unknown, text: string) => {
      const r = await call(ctx, op, q, b);
      assert.equal([r.status, r.error], [400, text], `${op.id}: ${what}`);
      checks++;
    };
    for (const [name, s] of Object.entries(op.query)) {
      if (s.required) {
        const { [name]: _, ...rest } = query;
        await refused(`query ${name} missing`, rest, body, s['x-missing-error'] ?? s['x-error']);
      }
      for (const v of broken(s, true)) await refused(`query ${name}=${v}`, { ...query, [name]: v }, body, s['x-error']);
    }
    if (op.body) {
      for (const [name, s] of Object.entries(props)) {
        if (needed.has(name)) {
          const { [name]: _, ...rest } = body as Record<string, unknown>;
          await refused(`body ${name} missing`, query, rest, s['x-missing-error'] ?? s['x-error']);
        }
        for (const v of broken(s, false)) {
          await refused(`body ${name}: ${JSON.stringify(v)}`, query, { ...(body as object), [name]: v }, s['x-error']);
        }
      }
      await refused(
        'an undeclared field',
        query,
        { ...(body as object), undeclaredField: 1 },
        op.body['x-error'].replace('<key>', 'undeclaredField'),
      );
    }
  }
  assert.ok(checks > 50, `only ${checks} checks`);
});

declared.run();
