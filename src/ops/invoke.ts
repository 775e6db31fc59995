// Operations called without HTTP (the MQTT link, docs/api.md, "MQTT"): by operation id or
// MQTT action, with a principal and an input object, through the same validation, scope
// check, audit of refusals and error catalogue as the HTTP route; the answer is
// `{status, body}`, the body being what the route would send as JSON.
import type { Principal, Scope } from '../auth/scopes.ts';
import type { Audit } from '../audit/trail.ts';
import { Errors, HttpError } from '../http/errors.ts';
import type { Log } from '../util/logger.ts';
import { type Fields, type Input, readFields } from './fields.ts';
import { readBody } from './http.ts';
import { type AnyOperation, type Context, pathParams } from './operation.ts';

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

/** Whether a credential may call an operation of this scope: the one rule, for HTTP (src/app.ts) and here. */
export function permits(scope: Scope | null, loginSuffices: boolean | undefined, principal: Principal): boolean {
  return scope === null || principal.scopes.has(scope) || (loginSuffices === true && principal.credential === 'login');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function createOperations(list: readonly AnyOperation[], deps: { audit: Audit; log: Log }): Operations {
  const byId = new Map(list.map((op) => [op.id, op]));
  const byAction = new Map(list.filter((op) => op.action).map((op) => [op.action!, op]));

  const run = async (op: AnyOperation, principal: Principal, input: unknown, client: string): Promise<Invoked> => {
    let asked: { path: string; to?: string } | undefined;
    try {
      if (!permits(op.scope, op.loginSuffices, principal)) throw Errors.insufficientScope(op.scope!);
      if (!isObject(input)) throw Errors.bodyNotJson();
      const ctx: Context = { principal: op.scope === null ? undefined : principal, client };
      let body = {} as Input<Fields>;
      let query: Input<Fields>;
      let document: unknown;
      if (op.document) {
        query = readFields((op.query ?? {}) as Fields, () => undefined, true);
        document = await op.document.check(input);
      } else if (op.body) {
        query = readFields((op.query ?? {}) as Fields, () => undefined, true);
        body = readBody(op, input);
      } else {
        query = readFields((op.query ?? {}) as Fields, (name) => input[name], true);
      }
      if (op.asked) asked = op.asked({ body, query });
      const params: Record<string, string> = {};
      for (const name of pathParams(op.path)) params[name] = typeof input[name] === 'string' ? (input[name] as string) : '';
      const a = await op.run({ body, query, params, document }, ctx);
      return { status: a.status, body: a.json ? JSON.parse(a.json.text) : (a.body ?? null) };
    } catch (err) {
      if (!(err instanceof HttpError)) {
        deps.log.error(`operation ${op.id}: ${String((err as Error)?.stack ?? err)}`);
        return { status: 500, body: { error: Errors.internal().message } };
      }
      if (err.status === 401 || err.status === 403) {
        deps.audit.record({
          event: 'denied',
          outcome: 'denied',
          user: principal.username || null,
          credential: principal.credential,
          client,
          ...(asked ?? { path: op.path }),
          status: err.status,
          reason: err.message,
        });
      }
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
