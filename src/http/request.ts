// The server's request class. Every property that the router and the auth check add to a
// request is declared here, so that all requests share one shape from construction: no
// per-request hidden-class transitions and no growing of an out-of-object property store
// as path, search, params and user are set one by one.
import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Principal } from '../auth/scopes.ts';
import type { Claims } from '../auth/tokens.ts';

/** The client address the audit trail, the access log and the handlers name. */
export const clientOf = (req: IncomingMessage): string => req.socket.remoteAddress ?? '';

/** Whether a connection came over TLS (a TLSSocket's `encrypted`; HTTP and HTTPS share the port). */
export const isTls = (socket: Socket): boolean => (socket as Socket & { encrypted?: boolean }).encrypted === true;

/**
 * Whether a body was sent and not read to its end (refused before reading, or too large):
 * the connection then closes after the answer, lingering so that the client reads it.
 */
export function hasUnreadBody(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The file paths a call names, as its client wrote them (a move: `to` too). */
export interface AskedPaths {
  path: string;
  to?: string;
}

/** Shared by requests whose route takes no parameters; never written. */
export const NO_FIELDS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export class AgentRequest extends IncomingMessage {
  /** The path as sent, without the query (not decoded). */
  path = '';
  /** The query with its `?`, or ''; handlers parse it with files/query.ts's rules. */
  search = '';
  /** Route parameters, %-decoded. */
  params: Record<string, string> = NO_FIELDS;
  /** The pattern of the route the router found (bounded: a metrics label); undefined when none. */
  route: string | undefined = undefined;
  /** Set by the credential check on protected routes: who, with which scopes and directory. */
  user: Principal | undefined = undefined;
  /** A login token's verified claims, set with `user`: an event stream re-checks them while it runs. */
  claims: Claims | undefined = undefined;
  /** An API token's hash, set with `user` instead of `claims`. */
  apiToken: string | undefined = undefined;
  /**
   * The file paths a file route was asked for, as the client wrote them, set once read: a
   * refusal of them is audited with these paths, not the route's (docs/api.md, "Audit trail").
   */
  asked: AskedPaths | undefined = undefined;
  /**
   * The response of a request that sent `Expect: 100-continue`, until `100 Continue` is
   * written: on the first read of the body, so only once the request passed its route's
   * auth check and the handler wants the body (src/http/server.ts, src/http/pipeline.ts). An answer that comes
   * first (a 401) goes out without it, and the client never sends the body.
   */
  continueWith: ServerResponse | undefined = undefined;

  override _read(size: number): void {
    const res = this.continueWith;
    if (res) {
      this.continueWith = undefined;
      if (!res.headersSent) res.writeContinue();
    }
    super._read(size);
  }
}
