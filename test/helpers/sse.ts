// A Server-Sent Events reader for the tests: node:http (own connection each), every event
// and comment with the time it arrived, the raw text kept to check the framing.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';

export interface SseEvent {
  /** Event name, or 'comment' for a `:` line. */
  event: string;
  data: string;
  /** Milliseconds since the request was sent. */
  at: number;
}

export interface SseStream {
  status: number;
  headers: IncomingMessage['headers'];
  events: SseEvent[];
  /** Everything received, as sent. */
  raw(): string;
  /** Resolves with the body's end: 'end' when the server ended it cleanly, 'error' when cut. */
  ended: Promise<'end' | 'error'>;
  /** Resolves once `count` events (comments included) matching `pred` have arrived. */
  waitFor(pred: (e: SseEvent) => boolean, count?: number, timeoutMs?: number): Promise<SseEvent[]>;
  close(): void;
}

export function openEvents(port: number, headers: Record<string, string>, path = '/api/v1/events'): Promise<SseStream> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let raw = '';
      let pending = '';
      const events: SseEvent[] = [];
      const waiters = new Set<() => void>();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        pending += chunk;
        let cut;
        while ((cut = pending.indexOf('\n\n')) !== -1) {
          const block = pending.slice(0, cut);
          pending = pending.slice(cut + 2);
          const at = Date.now() - t0;
          if (block.startsWith(':')) events.push({ event: 'comment', data: block.slice(1).trim(), at });
          else {
            const fields = new Map(block.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
            events.push({ event: fields.get('event') ?? 'message', data: fields.get('data') ?? '', at });
          }
        }
        for (const w of waiters) w();
      });
      const ended = new Promise<'end' | 'error'>((r) => {
        res.on('end', () => r('end'));
        res.on('error', () => r('error'));
        res.on('aborted', () => r('error'));
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        raw: () => raw,
        ended,
        waitFor(pred, count = 1, timeoutMs = 10_000) {
          return new Promise((ok, fail) => {
            const check = () => {
              const hits = events.filter(pred);
              if (hits.length >= count) {
                waiters.delete(check);
                clearTimeout(timer);
                ok(hits);
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`timed out: ${JSON.stringify(events.map((e) => [e.event, e.at]))}`));
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
        close: () => {
          req.destroy();
        },
      });
    });
    req.on('error', reject);
    req.end();
  });
}
