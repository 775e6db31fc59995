// The status page's outbox and MQTT link (docs/outbox.md, docs/mqtt.md): each a part of its own,
// shown only while it is on and only to a user who may read its route. Fetched with the status,
// at most every 10 s (the status arrives every 2 s), and the outbox at once after its events.
import { ApiError, getJson, session } from './api.ts';
import { figure, fill, h, uid } from './dom.ts';
import { bytes, when } from './format.ts';
import type { MqttState, OutboxState } from './types.ts';

const EVERY_MS = 10_000;

const files = (n: number) => `${n} ${n === 1 ? 'file' : 'files'}`;

/** A heading and a figures list, hidden while `render` finds nothing to show. */
function part<T>(title: string, path: string, render: (answer: T) => HTMLElement[] | undefined) {
  const id = uid('h-part');
  const list = h('dl', { class: 'figures' });
  const el = h('section', { 'aria-labelledby': id, class: 'part', hidden: true }, h('h3', { id }, title), list);
  let last = Number.NEGATIVE_INFINITY;
  let busy = false;
  let refused = false;
  const refresh = async (now = false) => {
    if (refused || busy || (!now && performance.now() - last < EVERY_MS)) return;
    busy = true;
    last = performance.now();
    try {
      const rows = render(await getJson<T>(path));
      if (rows) fill(list, ...rows);
      el.hidden = rows === undefined;
    } catch (err) {
      // 403: the user's scopes do not cover it; 404: an agent without it. Neither is an error to
      // show: the part stays hidden and is not asked again. Anything else (the network) keeps
      // what was shown until the next try.
      if (err instanceof ApiError && (err.status === 403 || err.status === 404)) {
        refused = true;
        el.hidden = true;
      }
    } finally {
      busy = false;
    }
  };
  return { el, refresh };
}

function outboxRows(o: OutboxState): HTMLElement[] | undefined {
  if (!o.enabled) return undefined;
  return [
    ...figure('State', o.state, o.nextAttemptAt ? `(next attempt ${when(o.nextAttemptAt)})` : undefined),
    ...figure('Pending', `${files(o.pending.files)}, ${bytes(o.pending.bytes)}`),
    ...figure('Failed', files(o.failed.length), o.failed[0] ? `(${o.failed[0].path}: ${o.failed[0].error})` : undefined),
    ...figure(
      'Last upload',
      o.lastSuccessAt ? when(o.lastSuccessAt) : 'none yet',
      `(${files(o.uploaded.files)}, ${bytes(o.uploaded.bytes)} since the agent started)`,
    ),
    ...figure('Last error', o.lastError?.text ?? 'none', o.lastError ? `(${when(o.lastError.time)})` : undefined),
  ];
}

function mqttRows(m: MqttState): HTMLElement[] | undefined {
  if (!m.enabled) return undefined;
  return [
    ...figure('Link', m.connected ? 'connected' : 'not connected', `(since ${when(m.since)})`),
    ...figure('Broker', m.url),
    ...figure('Last error', m.lastError?.text ?? 'none', m.lastError ? `(${when(m.lastError.time)})` : undefined),
  ];
}

/** The parts the logged-in user may read (outbox: `files:read`; MQTT: `status`). */
export function statusLinks() {
  const outbox = session.has('files:read') ? part('Outbox', '/api/v1/outbox', outboxRows) : undefined;
  const mqtt = session.has('status') ? part('MQTT', '/api/v1/mqtt', mqttRows) : undefined;
  return {
    els: [outbox?.el, mqtt?.el],
    /** With each status: each part at most every 10 s. */
    tick() {
      void outbox?.refresh();
      void mqtt?.refresh();
    },
    /** An `outbox` event (a file uploaded or set aside): the outbox's state at once. */
    outboxChanged() {
      void outbox?.refresh(true);
    },
  };
}
