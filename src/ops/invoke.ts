// Operations called without HTTP (the MQTT link, docs/api.md, "MQTT"): by operation id or
// MQTT action, with a principal and an input object, through the same validation, scope
// check, audit of refusals and error catalogue as the HTTP route; the answer is
// `{status, body}`, the body being what the route would send as JSON.
import type { Principal, Scope } from '../auth/scopes.ts';
import type { Audit } from '../audit/trail.ts';
import { Errors, HttpError } from '../http/errors.ts';
import type { AskedPaths } from '../http/request.ts';
import type { Log } from '../util/logger.ts';
import { NONE, queryFrom, readPayload } from './http.ts';
import { type AnyOperation, type Context, parsedJson, pathParams } from './operation.ts';

export interface Invoked {
  status: number;
  /** The route's JSON answer (`{"error": ...}` for an error); null for an answer without a body (204). */
  body: unknown;
}

export interface Operations {
  readonly list: readonly AnyOperation[];
  /**
   * Runs operation `id` (its operationId) for `principal`. `input` is the JSON body for an
   * operation that takes one, else its query parameters (and path parameters) as an object;
   * `client` is what the audit trail names the caller's origin. Never rejects.
   */
  invoke(id: string, principal: Principal, input: unknown, client: string): Promise<Invoked>;
  /** The same for an MQTT action (`recording/start`); an unknown one answers 404 `unknown command: <action>`. */
  command(action: string, principal: Principal, input: unknown, client: string): Promise<Invoked>;
}

/** Whether a credential may call an operation of this scope: the one rule, for HTTP (src/http/pipeline.ts) and here. */
export function permits(scope: Scope | null, loginSuffices: boolean | undefined, principal: Principal): boolean {
  return scope === null || principal.scopes.has(scope) || (loginSuffices === true && principal.credential === 'login');
}

/**
 * A refusal of a credential (401) or of a scope or path (403) in the audit trail: who was
 * refused what, the paths as the client wrote them (docs/api.md, "The audit trail"). The one
 * record, for HTTP (src/http/pipeline.ts) and here.
 */
export function auditDenial(audit: Audit, user: Principal | undefined, client: string, what: AskedPaths, err: HttpError): void {
  audit.record({
    event: 'denied',
    outcome: 'denied',
    user: user?.username || null,
    credential: user?.credential ?? 'none',
    client,
    ...what,
    status: err.status,
    reason: err.message,
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function createOperations(list: readonly AnyOperation[], deps: { audit: Audit; log: Log }): Operations {
  const byId = new Map(list.map((op) => [op.id, op]));
  const byAction = new Map(list.filter((op) => op.action).map((op) => [op.action!, op]));

  const run = async (op: AnyOperation, principal: Principal, input: unknown, client: string): Promise<Invoked> => {
    let asked: AskedPaths | undefined;
    try {
      if (!permits(op.scope, op.loginSuffices, principal)) throw Errors.insufficientScope(op.scope!);
      if (!isObject(input)) throw Errors.bodyNotJson();
      const ctx: Context = { principal: op.scope === null ? undefined : principal, client };
      // `input` is the body of an operation that takes one (its query then has its defaults), else its query.
      const payload = op.document !== undefined || op.body !== undefined;
      const query = queryFrom(op, payload ? () => undefined : (name) => input[name]);
      const { body, document } = payload ? await readPayload(op, input) : { body: NONE, document: undefined };
      if (op.asked) asked = op.asked({ body, query });
      const params: Record<string, string> = {};
      for (const name of pathParams(op.path)) params[name] = typeof input[name] === 'string' ? (input[name] as string) : '';
      const a = await op.run({ body, query, params, document }, ctx);
      return { status: a.status, body: a.json ? parsedJson(a.json) : (a.body ?? null) };
    } catch (err) {
      if (!(err instanceof HttpError)) {
        deps.log.error(`operation ${op.id}: ${String((err as Error)?.stack ?? err)}`);
        return { status: 500, body: { error: Errors.internal().message } };
      }
      if ((err.status === 401 || err.status === 403) && !op.auditsOwnRefusals)
        auditDenial(deps.audit, principal, client, asked ?? { path: op.path }, err);
      return { status: err.status, body: { error: err.message } };
    }
  };

  return {
    list,
    invoke: (id, principal, input, client) => {
      const op = byId.get(id);
      return op ? run(op, principal, input, client) : Promise.resolve({ status: 404, body: { error: Errors.notFound().message } });
    },
    command: (action, principal, input, client) => {
      const op = byAction.get(action);
      return op
        ? run(op, principal, input ?? {}, client)
        : Promise.resolve({ status: 404, body: { error: Errors.unknownCommand(action).message } });
    },
  };
}
