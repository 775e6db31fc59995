// Live figures: the agent's event stream (GET /api/v1/events, docs/api.md#events) read with fetch
// and the bearer header (EventSource cannot send it). An agent without the stream (404) or
// with all its streams taken (503) is polled every 2 s instead.
import { authHeaders, check, getJson, session } from './api.ts';
import type { ScheduleState } from './schedule.ts';
import type { DeviceStatus, Recording } from './types.ts';

export interface LiveHandlers {
  status(s: DeviceStatus): void;
  recording(r: Recording): void;
  /** A running capture's level (while a recording or a live stream runs). */
  level?(l: { device: string; peakDbfs: number; rmsDbfs: number }): void;
  /** A file the outbox uploaded or set aside (its state has changed). */
  outbox?(): void;
  /** The schedule's state, at each change (docs/schedule.md, "API"). */
  schedule?(s: ScheduleState): void;
}

const POLL_MS = 2000;
const RETRY_MS = 3000;

/** Calls `dispatch(event, data)` for each event of a text/event-stream body (WHATWG HTML §9.2.6). */
async function readEvents(body: ReadableStream<Uint8Array>, dispatch: (event: string, data: string) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0) dispatch(event || 'message', data.join('\n'));
        event = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue; // a keep-alive comment
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const val = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = val;
      else if (field === 'data') data.push(val);
    }
  }
}

/** Starts feeding the handlers; the returned function stops it. */
export function startLive(handlers: LiveHandlers): () => void {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const later = (fn: () => void, ms: number) => {
    if (!abort.signal.aborted) timer = setTimeout(fn, ms);
  };

  const poll = async () => {
    try {
      // The recording's status needs scope audio: a viewer polls the device status alone.
      const [status, recording] = await Promise.all([
        getJson<DeviceStatus>('/api/v1/devicestatus/get'),
        session.has('audio') ? getJson<Recording>('/api/v1/audiofiles/audiorecordstatus') : undefined,
      ]);
      if (abort.signal.aborted) return;
      handlers.status(status);
      if (recording) handlers.recording(recording);
    } catch (err) {
      if ((err as { status?: number }).status === 401) return; // back at the login form
    }
    later(poll, POLL_MS);
  };

  const stream = async () => {
    try {
      const res = await fetch('/api/v1/events', { headers: authHeaders({ Accept: 'text/event-stream' }), signal: abort.signal });
      if (res.status === 404 || res.status === 503) {
        await res.body?.cancel();
        return void poll();
      }
      await check(res);
      await readEvents(res.body!, (event, data) => {
        if (event === 'status') handlers.status(JSON.parse(data) as DeviceStatus);
        else if (event === 'recording') handlers.recording(JSON.parse(data) as Recording);
        else if (event === 'level') handlers.level?.(JSON.parse(data) as { device: string; peakDbfs: number; rmsDbfs: number });
        else if (event === 'outbox') handlers.outbox?.();
        else if (event === 'schedule') handlers.schedule?.(JSON.parse(data) as ScheduleState);
      });
    } catch (err) {
      if ((err as { status?: number }).status === 401) return; // back at the login form
    }
    // The stream ended (the token expired, the agent restarted, the network dropped): reconnect.
    later(stream, RETRY_MS);
  };

  void stream();
  return () => {
    abort.abort();
    clearTimeout(timer);
  };
}
