// The operations of the served document as tests read them (test/ops-declared.test.ts,
// test/client-openapi-fetch.test.ts), and tsc run on a generated program.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './agent.ts';

const run = promisify(execFile);

/** Operations that stream or take a form (not JSON): their inputs and calls are tested in their own files. */
export const STREAMS: ReadonlySet<string> = new Set([
  'download',
  'downloadHead',
  'upload',
  'audioLive',
  'events',
  'metrics',
  'docsPage',
  'openapi',
  'docsAsset',
  'webPage',
  'webFile',
]);

export type Schema = Record<string, any>;

export interface DocOperation {
  method: string;
  path: string;
  id: string;
  query: Record<string, Schema & { required: boolean }>;
  /** The JSON body's schema, if it takes one. */
  body: Schema | undefined;
}

/** Every operation of a served document (`/docs/openapi.json`, parsed), in the document's order. */
export function documentOperations(doc: { paths: unknown }): DocOperation[] {
  const ops: DocOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, o] of Object.entries(item)) {
      const query: DocOperation['query'] = {};
      for (const p of o.parameters ?? []) if (p.in === 'query') query[p.name] = { ...p.schema, required: p.required === true };
      ops.push({
        method: method.toUpperCase(),
        path,
        id: o.operationId,
        query,
        body: o.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return ops;
}

/** The repository's tsc on the project in `dir` (its tsconfig.json): what it reports, '' when the program type-checks. */
export function tscErrors(dir: string): Promise<string> {
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  return run(process.execPath, [tsc, '-p', dir]).then(
    () => '',
    (err) => `${err.stdout}${err.stderr}`,
  );
}
