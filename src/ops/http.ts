// An operation as an HTTP route: its query and JSON body read and checked against the
// declaration before the handler runs, the answer sent as JSON. The credential and scope
// check stay the request path's guard (src/http/pipeline.ts), which sets req.user before this runs.
import { parseQuery } from '../files/query.ts';
import { readJsonObject } from '../http/json-body.ts';
import { clientOf, NO_FIELDS } from '../http/request.ts';
import { jsonHeaders, sendJson } from '../http/respond.ts';
import type { Request, Response, Route } from '../http/types.ts';
import { type Fields, type Input, readFields } from './fields.ts';
import { type Answer, type AnyOperation, type Context, operationDoc, undeclared } from './operation.ts';

/** No inputs: the query of an operation without one, the body of one without a body. */
export const NONE = Object.freeze({}) as Input<Fields>;

/** The body's fields: an undeclared key first (refused), then each field in declared order. */
function readBody(op: AnyOperation, raw: Record<string, unknown>): Input<Fields> {
  const decl = op.body!;
  for (const key of Object.keys(raw)) if (!Object.hasOwn(decl.fields, key)) throw undeclared(key, decl.what);
  return readFields(decl.fields as Fields, (name) => raw[name], false);
}

/**
 * A JSON body's inputs, for every front end (src/ops/invoke.ts too): a whole document
 * checked by its own function, or the declared fields.
 */
export async function readPayload(op: AnyOperation, raw: Record<string, unknown>): Promise<{ body: Input<Fields>; document?: unknown }> {
  return op.document ? { body: NONE, document: await op.document.check(raw) } : { body: readBody(op, raw) };
}

/** The query's fields, each value from `get` (absent: its default); undeclared keys are ignored. */
export const queryFrom = (op: AnyOperation, get: (name: string) => unknown): Input<Fields> =>
  op.query ? readFields(op.query as Fields, get, true) : NONE;

/** The query's fields from a query string (a repeated key or a bad escape is refused by parseQuery). */
export function readQuery(op: AnyOperation, search: string): Input<Fields> {
  if (!op.query) return NONE;
  const query = parseQuery(search);
  return queryFrom(op, (name) => query.get(name));
}

const NO_STORE = { 'Cache-Control': 'no-store' };

/** Sends an answer: JSON, serialised JSON as kept, or nothing (204). */
function answerer(): (res: Response, a: Answer) => void {
  // An operation that answers one kept text until it changes (the status) gets its headers made once per text.
  let lastJson: Answer['json'];
  let lastHeaders = jsonHeaders(0);
  return (res, a) => {
    if (a.json) {
      if (a.json !== lastJson) {
        lastJson = a.json;
        lastHeaders = jsonHeaders(a.json.length);
      }
      res.writeHead(a.status, a.headers ? { ...a.headers, ...lastHeaders } : lastHeaders);
      res.end(a.json.text);
    } else if (a.body === undefined) {
      res.writeHead(a.status, a.headers ? { ...a.headers, ...NO_STORE } : NO_STORE);
      res.end();
    } else {
      sendJson(res, a.status, a.body, a.headers);
    }
  };
}

/** The operation each route made by toRoute serves: the router's Route knows nothing of operations (layers point one way). */
const served = new WeakMap<Route, AnyOperation>();

/** The declared operation a route serves, if it is one. */
export const operationOf = (route: Route): AnyOperation | undefined => served.get(route);

export function toRoute(op: AnyOperation): Route {
  const send = answerer();
  const run = (req: Request, res: Response, query: Input<Fields>, body: Input<Fields>, document?: unknown): void | Promise<void> => {
    const ctx: Context = { principal: req.user, client: clientOf(req) };
    if (op.asked) req.asked = op.asked({ body, query });
    const answer = op.run({ body, query, params: req.params ?? NO_FIELDS, document }, ctx);
    if (answer instanceof Promise) return answer.then((a) => send(res, a));
    send(res, answer);
  };
  const payload = op.document ?? op.body;
  const handler = payload
    ? (req: Request, res: Response) => {
        // The query is checked before the body is read: a bad one is answered without reading it.
        const query = readQuery(op, req.search);
        return readJsonObject(req, payload.limit)
          .then((raw) => readPayload(op, raw))
          .then((p) => run(req, res, query, p.body, p.document));
      }
    : (req: Request, res: Response) => {
        // A body, if any, means nothing here.
        if (op.method !== 'GET') req.resume();
        return run(req, res, readQuery(op, req.search), NONE);
      };
  const route: Route = {
    method: op.method,
    path: op.path,
    scope: op.scope,
    ...(op.loginSuffices ? { loginSuffices: true } : {}),
    ...(op.auditsOwnRefusals ? { auditsOwnRefusals: true } : {}),
    handler,
    doc: () => operationDoc(op),
  };
  served.set(route, op);
  return route;
}
