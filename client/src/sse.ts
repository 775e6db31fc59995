// Server-sent events (text/event-stream) read from a response: one { event, data } per
// event, data parsed as JSON (the agent sends one JSON `data:` line per event).
import type { Readable } from 'node:stream';

export interface RawEvent {
  event: string;
  data: string;
}

/** Events of a stream as they arrive; comment lines (`: keep-alive`) are skipped. */
export async function* readEvents(stream: Readable): AsyncGenerator<RawEvent> {
  stream.setEncoding('utf8');
  let buffer = '';
  let event = 'message';
  let data: string[] = [];
  for await (const chunk of stream) {
    buffer += chunk as string;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (line === '') {
        if (data.length > 0) yield { event, data: data.join('\n') };
        event = 'message';
        data = [];
      } else if (!line.startsWith(':')) {
        // a line starting with ':' is a comment
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
    }
  }
}
