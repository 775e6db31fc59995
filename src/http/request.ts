// The server's request class. Every property that the app, the auth check and polka add
// to a request is declared here, so that all requests share one shape from construction:
// no per-request hidden-class transitions and no growing of an out-of-object property
// store as path, search, query, params and user are set one by one.
import { IncomingMessage } from 'node:http';
import type { TokenUser } from '../auth/tokens.ts';

/** Shared by requests whose route takes no query object or parameters; never written. */
export const NO_FIELDS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export class AgentRequest extends IncomingMessage {
  path = '';
  search = '';
  query: Record<string, string> = NO_FIELDS;
  params: Record<string, string> = NO_FIELDS;
  user: TokenUser | undefined = undefined;
  // Set by polka on the routes it dispatches.
  originalUrl: string | undefined = undefined;
  _parsedUrl: unknown = undefined;
}
