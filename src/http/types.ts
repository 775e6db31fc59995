// Shapes shared by the HTTP layer and the route modules.
import type { ServerResponse } from 'node:http';
import type { AgentRequest } from './request.ts';

/** Every request the server makes is an AgentRequest (src/http/request.ts). */
export type Request = AgentRequest;
export type Response = ServerResponse;

export type Handler = (req: Request, res: Response) => Promise<void> | void;

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** One route as the app registers it; `auth` says whether a bearer token is required. */
export interface Route {
  method: Method;
  path: string;
  auth: boolean;
  /** A credential other than a bearer JWT that also opens this route (the metrics token). */
  credential?: (req: Request) => boolean;
  handler: Handler;
}
