// Shapes shared by the HTTP layer and the route modules.
import type { ServerResponse } from 'node:http';
import type { Principal, Scope } from '../auth/scopes.ts';
import type { HttpError } from './errors.ts';
import type { AgentRequest } from './request.ts';

/** Every request the server makes is an AgentRequest (src/http/request.ts). */
export type Request = AgentRequest;
export type Response = ServerResponse;

export type Handler = (req: Request, res: Response) => Promise<void> | void;

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** A route's scope is auth's (src/auth/scopes.ts); named here too for the route modules. */
export type { Scope };

/**
 * A route's OpenAPI operation, without `security` and without the answers of the auth
 * check: the document adds both from the route's scope (src/apidocs/openapi.ts), so the
 * document and the check cannot disagree.
 */
export interface RouteDoc {
  /** The operation object: tags, operationId, summary, description, parameters, requestBody, its own responses. */
  operation: Record<string, unknown>;
  /** The errors the handler itself answers (texts from src/http/errors.ts). */
  errors?: HttpError[];
  /** A description per status for those errors. */
  notes?: Record<number, string>;
}

/**
 * One route: the one place that says what it answers, who may call it and how the
 * document describes it. `scope` null: no credential (login, health, the pages).
 */
export interface Route {
  method: Method;
  path: string;
  scope: Scope | null;
  /** A login token opens the route without the scope (the token routes: a person manages their own tokens). */
  loginSuffices?: boolean;
  /**
   * A credential of the route's own, besides a bearer token (the metrics token): the
   * principal it opens the route with, or undefined when the request does not carry it.
   */
  credential?: (req: Request) => Principal | undefined;
  /** The route records its refusals itself (the login's `login` event): no `denied` audit record besides. */
  auditsOwnRefusals?: boolean;
  handler: Handler;
  /** Made only when the document is built (the first GET /docs/openapi.json). */
  doc: () => RouteDoc;
  /** For a GET route: the HEAD operation, when the document lists one. */
  headDoc?: () => RouteDoc;
}
