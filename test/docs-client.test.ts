// A typed client generated from the served /docs/openapi.json (openapi-typescript, with
// its documented transform of `format: binary` to Blob) and used through openapi-fetch:
// a small program that logs in, uploads a Blob and downloads an ArrayBuffer, with no
// cast, must type-check (tsc --strict) and then work against a live agent (docs/api.md#interactive-description). And a download's real Content-Type is one the document declares.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { ADMIN, makeDir, ROOT, startAgent, type TestAgent } from './helpers/agent.ts';
import { download } from './helpers/files.ts';
import { tscErrors } from './helpers/operations.ts';

/** The program a user of the generated client would write: no `as`, no `any`, no `!`. */
const PROGRAM = `import createClient from 'openapi-fetch';
import type { paths } from './schema.ts';

export async function roundTrip(baseUrl: string, username: string, password: string, bytes: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer> {
  const open = createClient<paths>({ baseUrl });
  const login = await open.POST('/api/v1/agentusers/loginusertoagent', { body: { username, password } });
  if (login.error) throw new Error(login.error.error);
  const token: string = login.data.token;

  const client = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${token}\` } });
  const file: Blob = new Blob([bytes]);
  const uploaded = await client.POST('/api/upload', {
    body: { saveToPath: 'generated/client.bin', myFile: file },
    bodySerializer(body) {
      const form = new FormData();
      form.append('saveToPath', body.saveToPath);
      for (const part of Array.isArray(body.myFile) ? body.myFile : [body.myFile]) form.append('myFile', part, 'client.bin');
      return form;
    },
  });
  if (uploaded.error) throw new Error(uploaded.error.error);
  const message: 'Uploaded successfully' = uploaded.data.message;
  if (message !== 'Uploaded successfully') throw new Error(message);

  const downloaded = await client.GET('/api/download', { params: { query: { filepath: 'generated/client.bin' } }, parseAs: 'arrayBuffer' });
  if (downloaded.error) throw new Error(String(downloaded.response.status));
  const body: ArrayBuffer = downloaded.data;
  return body;
}
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    allowImportingTsExtensions: true,
    lib: ['ES2022', 'DOM'],
    types: [],
    skipLibCheck: false,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
  },
  files: ['client.ts'],
};

type Ctx = { agent: TestAgent; dir: string };
const client = suite<Ctx>('generated client');
client.before(async (ctx) => {
  ctx.agent = await startAgent();
  mkdirSync(join(ctx.agent.baseDir, 'generated'));
  ctx.dir = makeDir('da-client-');
  symlinkSync(join(ROOT, 'node_modules'), join(ctx.dir, 'node_modules'));
});
client.after(async (ctx) => {
  await ctx.agent?.cleanup();
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

client(
  'openapi-typescript + openapi-fetch: a Blob up and an ArrayBuffer down type-check without casts and work',
  async ({ agent, dir }) => {
    assert.not.match(PROGRAM, /\bas\b|\bany\b|!\./, 'the program must not cast');
    const doc = await (await fetch(`${agent.url}/docs/openapi.json`)).json();
    const ast = await openapiTS(doc, {
      // openapi-typescript's documented way to type file parts: format binary as Blob.
      transform(schema) {
        if ('format' in schema && schema.format === 'binary') return ts.factory.createTypeReferenceNode('Blob');
        return undefined;
      },
    });
    writeFileSync(join(dir, 'schema.ts'), astToString(ast));
    writeFileSync(join(dir, 'client.ts'), PROGRAM);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    const checked = await tscErrors(dir);
    assert.is(
      checked,
      '',
      `tsc on the generated client:\n${checked}\n${readFileSync(join(dir, 'schema.ts'), 'utf8')
        .split('\n')
        .filter((l) => /myFile|fstype|"\*\/\*"|octet/.test(l))
        .join('\n')}`,
    );

    type RoundTrip = (baseUrl: string, username: string, password: string, bytes: Uint8Array<ArrayBuffer>) => Promise<ArrayBuffer>;
    const { roundTrip } = (await import(join(dir, 'client.ts'))) as { roundTrip: RoundTrip };
    const data = new Uint8Array(randomBytes(300 * 1024));
    const back = await roundTrip(agent.url, ADMIN.username, ADMIN.password, data);
    assert.ok(back instanceof ArrayBuffer);
    assert.ok(Buffer.from(back).equals(Buffer.from(data)), 'downloaded bytes differ');
    assert.ok(readFileSync(join(agent.baseDir, 'generated/client.bin')).equals(Buffer.from(data)));
  },
);

/** Whether a media type matches one of the document's media ranges (`*\/*`, `type/*`, exact). */
const declared = (ranges: string[], type: string) => {
  const [major] = type.split('/');
  return ranges.some((r) => r === '*/*' || r === `${major}/*` || r === type);
};

client('a download of a .txt or .wav file is sent with its own type, and the document declares it for 200 and 206', async ({ agent }) => {
  const doc = (await (await fetch(`${agent.url}/docs/openapi.json`)).json()) as any;
  const token = await agent.login();
  writeFileSync(join(agent.baseDir, 'generated/note.txt'), 'hello');
  writeFileSync(join(agent.baseDir, 'generated/take.wav'), randomBytes(64));
  for (const [file, type] of [
    ['note.txt', 'text/plain'],
    ['take.wav', 'audio/wav'],
  ] as const) {
    for (const [status, headers] of [
      [200, {}],
      [206, { Range: 'bytes=0-1' }],
    ] as const) {
      const res = await download(agent.url, token, `filepath=generated/${file}`, headers);
      assert.is(res.status, status);
      await res.arrayBuffer();
      const sent = res.headers.get('content-type')!.split(';')[0]!.trim();
      assert.match(sent, type);
      const content = doc.paths['/api/download'].get.responses[String(status)].content;
      assert.ok(declared(Object.keys(content), sent), `${status} declares ${Object.keys(content)}, the agent sent ${sent}`);
      for (const media of Object.values<any>(content)) assert.equal(media.schema, { type: 'string', format: 'binary' });
    }
  }
});

client('myFile is one binary or an array of them; fstype is optional with no default', async ({ agent }) => {
  const doc = (await (await fetch(`${agent.url}/docs/openapi.json`)).json()) as any;
  const form = doc.components.schemas.UploadForm;
  assert.equal(form.required, ['saveToPath', 'myFile']);
  assert.equal(form.properties.myFile.oneOf, [
    { type: 'string', format: 'binary' },
    { type: 'array', items: { type: 'string', format: 'binary' }, minItems: 1 },
  ]);
  assert.is(form.properties.fstype.default, undefined);
  const param = doc.paths['/api/download'].get.parameters.find((p: any) => p.name === 'fstype');
  assert.is(param.required, false);
  assert.is(param.schema.default, undefined);
});

client.run();
