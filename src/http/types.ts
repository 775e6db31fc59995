// Shapes shared by the HTTP layer and the route modules.
import type { Request as PolkaRequest, Response } from 'polka';
import type { TokenUser } from '../auth/tokens.ts';

export interface Request extends PolkaRequest {
  /** Set by the auth check on protected routes. */
  user?: TokenUser;
}

export type { Response };

export type Handler = (req: Request, res: Response) => Promise<void> | void;

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** One route as the app registers it; `auth` says whether a bearer token is required. */
export interface Route {
  method: Method;
  path: string;
  auth: boolean;
  handler: Handler;
}
