// One API operation, declared once (docs/declaring-operations.md): method, path, scope, inputs
// (query and body fields, src/ops/fields.ts), answers and the handler. The HTTP route
// (src/ops/http.ts), the document's operation (operationDoc below) and calls from other
// front ends (src/ops/invoke.ts) all come from this one object.
import type { Principal } from '../auth/scopes.ts';
import { Errors, type HttpError } from '../http/errors.ts';
import type { Scope } from '../auth/scopes.ts';
import type { AskedPaths } from '../http/request.ts';
import type { Method, RouteDoc } from '../http/types.ts';
import { type Fields, type Input, objectSchema, type Schema } from './fields.ts';

/** Who calls, from where: what a handler may know of its caller, whatever the front end. */
export interface Context {
  /** The checked credential; undefined on an operation without a scope (login, health). */
  principal: Principal | undefined;
  /** The client's address (HTTP), or what the front end names it by (the broker's host over MQTT). */
  client: string;
}

/**
 * Serialised JSON, sent as is over HTTP: kept between answers (the status sampler's), or
 * written as bytes (the schedule's preview). `length` counts bytes.
 */
export interface JsonText {
  text: string | Buffer;
  length: number;
}

/** A JsonText's value, for a front end that answers objects (an MQTT command, the link's state). */
export const parsedJson = (t: JsonText): unknown => JSON.parse(String(t.text));

/**
 * What an operation answers: a status and a JSON body (none: an empty answer, e.g. 204),
 * or `json`, a body already serialised. Errors are thrown as HttpError (src/http/errors.ts).
 */
export interface Answer {
  status: number;
  body?: unknown;
  json?: JsonText;
  headers?: Record<string, string>;
}

/** The JSON body an operation takes: its fields, its size limit, and the name an undeclared field's 400 gives it. */
export interface BodyDecl<B extends Fields> {
  fields: B;
  limit: number;
  /** `<key> is not a field of <what>`: every body is closed. */
  what: string;
}

/**
 * A JSON body taken whole and checked by its own function, for a document whose refusals
 * name a path (`windows[1].start: must be …`) rather than one field: its schema goes in the
 * document as it is, its errors are listed, and the handler gets what `check` returns as `document`.
 */
export interface DocumentDecl {
  limit: number;
  schema: Schema;
  /** Throws the body's 400 (an HttpError); resolves to what the handler is given. */
  check(raw: Record<string, unknown>): unknown;
  errors: () => HttpError[];
}

export interface Operation<B extends Fields = Fields, Q extends Fields = Fields> {
  /** The operationId: the name other front ends call it by. */
  id: string;
  method: Method;
  path: string;
  scope: Scope | null;
  /** A login token opens the operation without the scope (a person manages their own tokens). */
  loginSuffices?: boolean;
  /** Its refusals are audit events of its own (the login's `login`): no `denied` record besides. */
  auditsOwnRefusals?: boolean;
  /** The MQTT command (contract topic level, docs/api.md, "MQTT") that runs this operation. */
  action?: string;
  tags: string[];
  summary: string;
  description?: string;
  /** Further keys of the document's operation object (`x-credential`). */
  extra?: Record<string, unknown>;
  query?: Q;
  body?: BodyDecl<B>;
  /** Instead of `body`: a whole JSON body checked by its own function. */
  document?: DocumentDecl;
  /** Successful answers: status → description and JSON schema (or a whole response object). */
  answers: Record<number, { description: string; schema?: Schema } | { description: string; content: Record<string, unknown> }>;
  /** The errors the handler itself throws (the inputs' come from their declarations). */
  errors?: () => HttpError[];
  /** A description per error status. */
  notes?: Record<number, string>;
  /**
   * The file paths the call names, as its client wrote them: a refusal's audit (`denied`) names
   * these rather than the route (docs/api.md, "The audit trail").
   */
  asked?(input: { body: Input<B>; query: Input<Q> }): AskedPaths;
  run(
    input: { body: Input<B>; query: Input<Q>; params: Record<string, string>; document?: unknown },
    ctx: Context,
  ): Answer | Promise<Answer>;
}

// biome-ignore lint/suspicious/noExplicitAny: a list holds operations of any inputs
export type AnyOperation = Operation<any, any>;

/** Declares an operation; the handler's input is typed from the fields (src/ops/fields.ts, Input). */
export const operation = <B extends Fields = Record<never, never>, Q extends Fields = Record<never, never>>(
  op: Operation<B, Q>,
): Operation<B, Q> => op;

/** The names of a route's path parameters (`/api/v1/tokens/:id` → id). */
export const pathParams = (path: string): string[] => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/** The refusal of a body key no field declares. */
export const undeclared = (key: string, what: string) => Errors.badField(key, `is not a field of ${what}`);

/** Every 400 and 413 the declared inputs answer, in the order they are checked. */
export function inputErrors(op: AnyOperation): HttpError[] {
  const out: HttpError[] = [];
  for (const [name, f] of Object.entries((op.query ?? {}) as Fields)) out.push(...f.errors(name));
  if (op.body) {
    out.push(Errors.bodyNotJson(), Errors.bodyTooLarge(op.body.limit), undeclared('<key>', op.body.what));
    for (const [name, f] of Object.entries(op.body.fields as Fields)) out.push(...f.errors(name));
  }
  if (op.document) out.push(Errors.bodyNotJson(), Errors.bodyTooLarge(op.document.limit), ...op.document.errors());
  return out;
}

/** The document's operation object (without security and the credential check's answers: src/apidocs/openapi.ts adds them). */
export function operationDoc(op: AnyOperation): RouteDoc {
  const parameters: Record<string, unknown>[] = pathParams(op.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  for (const [name, f] of Object.entries((op.query ?? {}) as Fields)) {
    const { description, ...schema } = f.schema(name);
    parameters.push({ name, in: 'query', required: f.required, ...(description ? { description } : {}), schema });
  }
  const responses: Record<string, unknown> = {};
  for (const [status, a] of Object.entries(op.answers)) {
    responses[status] =
      'content' in a ? a : { description: a.description, ...(a.schema ? { content: { 'application/json': { schema: a.schema } } } : {}) };
  }
  return {
    operation: {
      tags: op.tags,
      operationId: op.id,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      ...op.extra,
      ...(op.action ? { 'x-mqtt-command': op.action } : {}),
      ...(parameters.length ? { parameters } : {}),
      // Inline, not a component: generators (openapi-typescript) make a property with a
      // default optional only in a request body's own schema.
      ...(op.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: objectSchema(op.body.fields, undeclared('<key>', op.body.what).message) } },
            },
          }
        : op.document
          ? {
              requestBody: {
                required: true,
                // `x-document`: checked whole by the operation's own function; its texts are the 400's.
                content: { 'application/json': { schema: { ...op.document.schema, 'x-document': true } } },
              },
            }
          : {}),
      responses,
    },
    errors: [...inputErrors(op), ...(op.errors?.() ?? [])],
    notes: op.notes,
  };
}
