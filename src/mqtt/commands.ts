// Commands over MQTT (docs/mqtt.md, "Commands"): `P/command/<action>` runs the API operation
// of that name through the injected `run` (the same declaration as its HTTP route), and the
// answer goes back as `{"status", "body"}` on the reply topic the request named.
import type { Principal } from '../auth/scopes.ts';
import type { Audit } from '../audit/trail.ts';
import { Errors } from '../http/errors.ts';
import type { Publish } from './packet.ts';
import { monotonicMs } from '../util/clock.ts';

/** The actions, and whether each changes something (run once per correlation id). */
export const ACTIONS: Readonly<Record<string, boolean>> = {
  status: false,
  'recording/start': true,
  'recording/stop': true,
  'recording/status': false,
  'schedule/get': false,
  'schedule/set': true,
  'schedule/clear': true,
  'outbox/get': false,
  'outbox/retry': true,
  'files/list': false,
  'files/delete': true,
  'files/mkdir': true,
  'files/move': true,
  'audio/devices': false,
  'audio/level': false,
};

export interface Outcome {
  status: number;
  body: unknown;
}

/** Runs one operation as its HTTP route would (validation, errors, scope, audit of refusals): src/ops/invoke.ts's command(). */
export type Run = (action: string, principal: Principal, input: unknown, client: string) => Promise<Outcome>;

export interface CommandDeps {
  /** `<topicPrefix>/<deviceId>` */
  base: string;
  /** Home Assistant's prefix, where no reply may go; null with discovery off. */
  discoveryPrefix: string | null;
  principal: Principal;
  run: Run;
  audit: Audit;
  /** The broker's host, as the audit trail's `client`. */
  client: string;
  /** Counts a command: `action` is "unknown" for one not in ACTIONS. */
  count(action: string, status: number): void;
  /** Publishes a reply (QoS 1, not retained). */
  reply(topic: string, payload: Buffer, correlationData: Buffer | undefined): Promise<void>;
  /** The changing commands seen (RUN_ONCE): the link's, kept across its connections, where a client's retry comes. */
  seen: Seen;
}

export type Seen = Map<string, { at: number; outcome: Promise<Outcome> }>;

/** Changing commands seen (by action and correlation id) in the last 10 minutes, the last 1,000 at most. */
export const RUN_ONCE = { windowMs: 10 * 60_000, max: 1_000 };

export const RETAINED_TEXT = 'retained commands are not run';

interface Request {
  action: string;
  input: unknown;
  /** The reply's topic, and its correlation data (MQTT 5) or id (an envelope's). */
  topic: string;
  correlation: Buffer | undefined;
  id: unknown;
  /** The payload did not parse: the operation's scope is checked, then the HTTP route's 400. */
  malformed: boolean;
}

/** A topic may carry a reply: no wildcard, no NUL, not empty. */
const publishable = (t: string) => t.length > 0 && !/[+#\0]/.test(t) && Buffer.byteLength(t) <= 65535;

export class Commands {
  constructor(
    private readonly deps: CommandDeps,
    /** The largest packet read whole: a command over it is answered 413. */
    private readonly maxPacket: number,
  ) {}

  /** Handles one message on `P/command/#`; resolves once its reply is sent (or refused). */
  async handle(msg: Publish, version: 4 | 5): Promise<void> {
    const d = this.deps;
    // An empty retained message is how a retained command is cleared: nothing to run or answer.
    if (msg.retain && msg.payload.length === 0 && msg.oversize === undefined) return;
    const action = msg.topic.slice(`${d.base}/command/`.length);
    const req = this.parse(action, msg, version);
    const known = Object.hasOwn(ACTIONS, action);
    const counted = known ? action : 'unknown';
    if (!this.allowedReplyTopic(req.topic)) {
      // A command must not make the agent speak on its own availability, state or discovery topics.
      this.denied(action, 403, `reply topic not allowed: ${req.topic}`);
      d.count(counted, 403);
      return;
    }
    let outcome: Promise<Outcome>;
    if (msg.retain) {
      // A retained command would run again at every reconnect, days later.
      this.denied(action, 400, RETAINED_TEXT);
      outcome = Promise.resolve({ status: 400, body: { error: RETAINED_TEXT } });
    } else if (!known) {
      this.denied(action, 404, `unknown command: ${action}`);
      outcome = Promise.resolve({ status: 404, body: { error: `unknown command: ${action}` } });
    } else if (msg.oversize !== undefined) {
      outcome = Promise.resolve({ status: 413, body: { error: Errors.bodyTooLarge(this.maxPacket).message } });
    } else if (req.malformed) {
      // Not JSON: what the route answers such a body, after the same scope check (403, audited).
      outcome = d.run(action, d.principal, req.input, d.client);
    } else {
      outcome = this.runOnce(action, req);
    }
    const result = await outcome.catch(
      (err: unknown): Outcome => ({ status: 500, body: { error: 'internal error', detail: String(err) } }),
    );
    d.count(counted, result.status);
    const body = result.status === 500 ? { error: 'internal error' } : result.body;
    const reply = req.id === undefined ? { status: result.status, body } : { id: req.id, status: result.status, body };
    await d.reply(req.topic, Buffer.from(JSON.stringify(reply)), req.correlation);
  }

  private runOnce(action: string, req: Request): Promise<Outcome> {
    const d = this.deps;
    const key = req.correlation?.toString('hex') ?? (req.id === undefined ? undefined : `id:${JSON.stringify(req.id)}`);
    if (!ACTIONS[action] || key === undefined) return d.run(action, d.principal, req.input, d.client);
    const now = monotonicMs();
    const seen = d.seen;
    for (const [k, v] of seen) {
      if (now - v.at < RUN_ONCE.windowMs && seen.size <= RUN_ONCE.max) break;
      seen.delete(k); // oldest first: a Map keeps insertion order
    }
    const full = `${action}\0${key}`;
    const earlier = seen.get(full);
    if (earlier) return earlier.outcome; // its first reply, sent again
    const outcome = d.run(action, d.principal, req.input, d.client);
    seen.set(full, { at: now, outcome });
    if (seen.size > RUN_ONCE.max) seen.delete(seen.keys().next().value as string);
    return outcome;
  }

  private parse(action: string, msg: Publish, version: 4 | 5): Request {
    const fallback = `${this.deps.base}/reply/${action}`;
    let value: unknown = {};
    let malformed = false;
    if (msg.payload.length > 0) {
      try {
        value = JSON.parse(msg.payload.toString('utf8'));
      } catch {
        malformed = true;
        value = msg.payload.toString('utf8'); // not an object: the operation refuses it as the route does
      }
    }
    const responseTopic = version === 5 ? msg.properties?.responseTopic : undefined;
    if (responseTopic !== undefined) {
      return { action, input: value, topic: responseTopic, correlation: msg.properties?.correlationData, id: undefined, malformed };
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'body')) {
      const env = value as { id?: unknown; replyTo?: unknown; body: unknown };
      const topic = typeof env.replyTo === 'string' ? env.replyTo : fallback;
      return { action, input: env.body, topic, correlation: undefined, id: env.id, malformed };
    }
    return { action, input: value, topic: fallback, correlation: undefined, id: undefined, malformed };
  }

  /** Not under P/ except P/reply/…, not under the discovery prefix, and a topic one may publish to. */
  private allowedReplyTopic(topic: string): boolean {
    const { base, discoveryPrefix } = this.deps;
    if (!publishable(topic)) return false;
    if ((topic === base || topic.startsWith(`${base}/`)) && !topic.startsWith(`${base}/reply/`)) return false;
    // Nor another device's command topic (`<topicPrefix>/<id>/command…`): a reply there is a command to it.
    const prefix = base.slice(0, base.lastIndexOf('/') + 1);
    if (topic.startsWith(prefix) && /^[^/]+\/command(\/|$)/.test(topic.slice(prefix.length))) return false;
    if (discoveryPrefix !== null && (topic === discoveryPrefix || topic.startsWith(`${discoveryPrefix}/`))) return false;
    return true;
  }

  private denied(action: string, status: number, reason: string): void {
    const d = this.deps;
    d.audit.record({
      event: 'denied',
      outcome: 'denied',
      user: 'mqtt',
      credential: 'mqtt',
      client: d.client,
      path: `${d.base}/command/${action}`,
      status,
      reason,
    });
  }
}
