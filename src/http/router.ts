// The one router: every route is found here, with one set of rules for all of them.
// Paths match ASCII case-insensitively with one optional trailing slash (regexparam's
// rules, which clients may rely on), HEAD runs the GET handler, and a
// path that matches under other methods is a 405 with their list. Parameterless routes are
// one Map lookup: measured, polka's route scan and async handler loop were a third of the
// time of an authenticated status request (docs/performance.md).
import { parse as parsePattern } from 'regexparam';
import { NO_FIELDS } from './request.ts';
import type { Handler, Method, Route } from './types.ts';

export interface Found {
  route: Route;
  /** The handler to run (the route's, wrapped by the app with its auth check). */
  handler: Handler;
  params: Record<string, string>;
}

interface ParamRoute extends Found {
  method: Method;
  pattern: RegExp;
  keys: string[];
}

/** Printable ASCII: the only characters a lower-cased lookup can match (route paths are ASCII). */
const PRINTABLE = /^[\x21-\x7e]*$/;

function decodeParam(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value; // a malformed escape stays as sent; the handler refuses what it cannot use
  }
}

export class Router {
  /** Parameterless routes by method, then by lower-cased path: no key string is built per request. */
  private readonly exact = new Map<string, Map<string, Found>>();
  private readonly withParams: ParamRoute[] = [];
  /** Every registered (method, pattern), for the 405 Allow list. */
  private readonly patterns: { method: Method; pattern: RegExp }[] = [];

  constructor(routes: readonly Route[], wrap: (route: Route) => Handler) {
    for (const route of routes) {
      const handler = wrap(route);
      const { pattern, keys } = parsePattern(route.path);
      this.patterns.push({ method: route.method, pattern });
      if (keys.length === 0) {
        const found: Found = { route, handler, params: NO_FIELDS };
        const path = route.path.toLowerCase();
        this.exactFor(route.method).set(path, found);
        if (route.method === 'GET') this.exactFor('HEAD').set(path, found);
      } else {
        this.withParams.push({ route, handler, params: NO_FIELDS, method: route.method, pattern, keys });
      }
    }
  }

  private exactFor(method: string): Map<string, Found> {
    let paths = this.exact.get(method);
    if (!paths) this.exact.set(method, (paths = new Map()));
    return paths;
  }

  /** The route for a method and a raw (undecoded) path without query, or undefined. */
  find(method: string, rawPath: string): Found | undefined {
    let path = rawPath;
    if (path.length > 1 && path.charCodeAt(path.length - 1) === 0x2f) path = path.slice(0, -1);
    // A path spelled as registered (lower case) is found at once; any other spelling only
    // after the printable check and lower-casing.
    const paths = this.exact.get(method);
    const hit = paths && (paths.get(path) ?? (PRINTABLE.test(path) ? paths.get(path.toLowerCase()) : undefined));
    if (hit) return hit;
    for (const r of this.withParams) {
      if (r.method !== method && !(method === 'HEAD' && r.method === 'GET')) continue;
      const m = r.pattern.exec(rawPath);
      if (!m) continue;
      const params: Record<string, string> = {};
      r.keys.forEach((key, i) => {
        params[key] = decodeParam(m[i + 1] ?? '');
      });
      return { route: r.route, handler: r.handler, params };
    }
    return undefined;
  }

  /** The methods a path answers to (HEAD wherever GET), sorted; empty for an unknown path. */
  allowed(rawPath: string): string[] {
    const methods = new Set<string>();
    for (const p of this.patterns) if (p.pattern.test(rawPath)) methods.add(p.method);
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}
