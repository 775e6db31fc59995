// Holds real answers to the agent's OpenAPI document: the document is validated with
// @seriousme/openapi-schema-validator, each answer's body with ajv (JSON Schema 2020-12).
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as assert from 'uvu/assert';

type Obj = Record<string, any>;

export interface LoadedDocument {
  /** The document as served. */
  raw: Obj;
  /** The same with every $ref replaced by its target. */
  resolved: Obj;
  valid: boolean;
  errors: unknown;
}

export async function loadDocument(baseUrl: string): Promise<LoadedDocument> {
  const res = await fetch(`${baseUrl}/docs/openapi.json`);
  assert.is(res.status, 200, 'GET /docs/openapi.json');
  return readDocument((await res.json()) as Obj);
}

/** A document fetched some other way (over HTTPS with a client certificate), validated and resolved. */
export async function readDocument(raw: Obj): Promise<LoadedDocument> {
  const validator = new Validator();
  const { valid, errors } = await validator.validate(structuredClone(raw));
  return { raw, resolved: valid ? validator.resolveRefs() : {}, valid, errors };
}

// ajv-formats (CJS) under ESM: the function may sit on .default.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
((addFormats as any).default ?? addFormats)(ajv);
// OpenAPI's own format names: annotations, not checks.
ajv.addFormat('password', true);
ajv.addFormat('binary', true);
ajv.addKeyword('example');

/** `<...>` marks the variable part of a text in the document: it matches anything. */
export function textPattern(text: string): RegExp {
  const parts = text.split(/<[^<>]+>/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^]+')}$`);
}

/**
 * Asserts that the document describes this answer: its status on this operation, the
 * headers the response declares, a body valid against the response schema and, for an
 * error, a text among the documented ones.
 */
export async function assertDocumented(doc: LoadedDocument, method: string, path: string, res: Response): Promise<Obj | undefined> {
  const where = `${method.toUpperCase()} ${path} -> ${res.status}`;
  const op = doc.resolved.paths?.[path]?.[method.toLowerCase()];
  assert.ok(op, `${method.toUpperCase()} ${path} is not in the document`);
  const spec = op.responses[String(res.status)];
  assert.ok(spec, `${where}: status not documented (body: ${await res.clone().text()})`);
  for (const [name, header] of Object.entries<any>(spec.headers ?? {})) {
    if (header.required !== false) assert.ok(res.headers.has(name), `${where}: header ${name} missing`);
  }
  const media = spec.content?.['application/json'];
  if (!media) return undefined;
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `${where}: content type`);
  const body = (await res.json()) as Obj;
  const validate = ajv.compile(media.schema);
  assert.ok(validate(body), `${where}: body ${JSON.stringify(body)} breaks the schema: ${ajv.errorsText(validate.errors)}`);
  const texts = Object.values(media.examples ?? {}).map((e: any) => e.value?.error as string);
  if (typeof body.error === 'string' && texts.length > 0) {
    assert.ok(
      texts.some((t) => textPattern(t).test(body.error)),
      `${where}: text "${body.error}" is not among ${JSON.stringify(texts)}`,
    );
  }
  return body;
}
