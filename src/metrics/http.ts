// Requests by route pattern, method and status, and their duration by route. Labels are
// bounded: the route pattern the router found (never the client's path), one shared
// value for every request no route took (404 and 405), a fixed set of methods.
import { Counter, Histogram, type Cell, type HistogramCell, type Registry } from './registry.ts';

/** The route label of every request that matched no route. */
export const UNMATCHED = 'unmatched';
/** The status label of a request whose client left before any answer (the access log's 000). */
const NO_ANSWER = 0;

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

/**
 * Seconds. The agent answers most requests in well under a millisecond; downloads and
 * uploads of 50 MB on a slow link take minutes.
 */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];

interface RouteCells {
  route: string;
  /** method -> status -> cell */
  byMethod: Map<string, Map<number, Cell>>;
  duration: HistogramCell;
}

export class HttpMetrics {
  private readonly requests: Counter;
  private readonly duration: Histogram;
  private readonly routes = new Map<string, RouteCells>();
  private readonly unmatched: RouteCells;

  constructor(registry: Registry) {
    this.requests = registry.add(
      new Counter(
        'device_agent_http_requests_total',
        'HTTP requests answered, by route pattern, method and status (000: the client left before an answer)',
        ['route', 'method', 'status'],
      ),
    );
    this.duration = registry.add(
      new Histogram(
        'device_agent_http_request_duration_seconds',
        'Time from the request head to the last byte of the answer handed to the kernel, by route pattern',
        ['route'],
        DURATION_BUCKETS,
      ),
    );
    this.unmatched = this.routeCells(UNMATCHED);
  }

  /** The route patterns the app serves: their duration series exist from the start. */
  declare(patterns: readonly string[]): void {
    for (const p of patterns) this.routeCells(p);
  }

  private routeCells(route: string): RouteCells {
    let cells = this.routes.get(route);
    if (!cells) this.routes.set(route, (cells = { route, byMethod: new Map(), duration: this.duration.cell(route) }));
    return cells;
  }

  /** One answered (or abandoned) request: `route` is the router's pattern, undefined when none matched. */
  observe(route: string | undefined, method: string | undefined, status: number, ms: number): void {
    const cells = (route === undefined ? undefined : this.routes.get(route)) ?? this.unmatched;
    const m = method !== undefined && METHODS.has(method) ? method : 'OTHER';
    let byStatus = cells.byMethod.get(m);
    if (!byStatus) cells.byMethod.set(m, (byStatus = new Map()));
    let cell = byStatus.get(status);
    if (!cell) {
      const label = status === NO_ANSWER ? '000' : String(status);
      byStatus.set(status, (cell = this.requests.cell(cells.route, m, label)));
    }
    cell.value++;
    cells.duration.observe(ms / 1000);
  }
}
