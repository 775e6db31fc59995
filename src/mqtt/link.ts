// The MQTT link (docs/mqtt.md): one reconnect loop to the broker, availability with a will,
// `state` and `event/<name>`, Home Assistant discovery, commands. Loaded only when `mqtt` is
// configured (src/serve.ts imports it dynamically); it never holds up the HTTP service.
import type { Principal } from '../auth/scopes.ts';
import type { Audit } from '../audit/trail.ts';
import type { Log } from '../util/logger.ts';
import { settleSoon } from '../native/memory.ts';
import { Backoff } from './backoff.ts';
import { Connection, MAX_PACKET } from './client.ts';
import { Commands, type Run, type Seen } from './commands.ts';
import type { MqttConfig, MqttSecrets } from './config.ts';
import { discoveryPayload, discoveryTopic } from './discovery.ts';
import type { Publish } from './packet.ts';
import type { MqttFigures, MqttStatus } from './status.ts';
import { isoTime } from '../util/time.ts';
import { monotonicMs } from '../util/clock.ts';

/** Events of the events stream sent as `event/<name>`; each also means `state` changed. */
const EVENTS = new Set(['recording', 'segment', 'schedule', 'outbox']);
/** A change reaches `state` within this long (several changes in it: one message). */
const CHANGE_MS = 250;
const CONNECT_TIMEOUT_MS = 30_000;

export interface LinkDeps {
  deviceId: string;
  log: Log;
  audit: Audit;
  /** The state record (src/mqtt/state.ts). */
  state(): Promise<Record<string, unknown>>;
  /** Every event of the events hub. */
  onEvent(listener: (event: string, json: string) => void): () => void;
  run: Run;
  figures: MqttFigures;
}

export class MqttLink {
  private conn: Connection | undefined;
  private stopping = false;
  private loopDone: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly backoff = new Backoff();
  /** Changing commands run, by action and correlation: kept across connections and reloads, where retries come. */
  private readonly seen: Seen = new Map();
  private since = Date.now();
  private lastError: { time: string; text: string } | null = null;
  private published = 0;
  private received = 0;
  private stateTimer: NodeJS.Timeout | undefined;
  private changeTimer: NodeJS.Timeout | undefined;
  private lastState: Record<string, unknown> = {};
  private readonly offEvents: () => void;
  /** A reconfigure closed the connection: connect again at once, no error. */
  private reconnectNow = false;

  constructor(
    private config: MqttConfig,
    private secrets: MqttSecrets,
    private readonly deps: LinkDeps,
  ) {
    this.offEvents = deps.onEvent((event, json) => {
      if (!EVENTS.has(event)) return;
      this.send(`${this.base}/event/${event}`, json, false);
      this.stateSoon();
    });
  }

  get clientId(): string {
    return `device-agent-${this.deps.deviceId}`;
  }

  /** `<topicPrefix>/<deviceId>` */
  get base(): string {
    return `${this.config.topicPrefix}/${this.deps.deviceId}`;
  }

  /** Starts the loop; returns at once (the first connect happens in the background). */
  start(): void {
    this.loopDone ??= this.loop();
  }

  /** SIGHUP: changed keys (or re-read files) apply by reconnecting with them now. */
  async reconfigure(config: MqttConfig, secrets: MqttSecrets): Promise<void> {
    const changed = JSON.stringify(config) !== JSON.stringify(this.config) || !sameSecrets(secrets, this.secrets);
    if (!changed) return;
    this.config = config; // before the close: the loop's next attempt uses them
    this.secrets = secrets;
    this.backoff.reset();
    this.reconnectNow = true;
    const conn = this.conn;
    if (conn) await this.goOffline(conn, `${conn.base}/availability`);
    this.wake?.();
  }

  /** Clean shutdown: `offline` published (retained), then a normal DISCONNECT. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.offEvents();
    const conn = this.conn;
    if (conn) await this.goOffline(conn);
    this.wake?.();
    // An attempt under way (up to its 30 s timeout) is not waited for: the stop goes on, and
    // the loop ends that connection unannounced if it still succeeds.
    await Promise.race([this.loopDone, new Promise((r) => setTimeout(r, 2_000).unref())]);
  }

  status(): MqttStatus {
    return {
      enabled: true,
      url: this.config.url,
      clientId: this.clientId,
      connected: this.conn !== undefined,
      since: isoTime(this.since),
      lastError: this.lastError,
      published: this.published,
      received: this.received,
    };
  }

  private async goOffline(conn: Connection, topic = `${this.base}/availability`): Promise<void> {
    const done = Promise.race([
      conn.publish({ topic, payload: Buffer.from('offline'), qos: 1, retain: true }).catch(() => {}),
      new Promise((r) => setTimeout(r, 2_000).unref()),
    ]);
    this.published++;
    await done;
    await conn.end();
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      this.reconnectNow = false;
      let connectedAt = 0;
      try {
        const conn = await this.open();
        if (this.stopping) {
          await conn.end(); // stopped while connecting: never announce online
          break;
        }
        connectedAt = monotonicMs();
        await this.serve(conn);
      } catch (err) {
        this.fail(err);
      }
      if (this.stopping) break;
      if (this.reconnectNow) {
        this.reconnectNow = false;
        continue;
      }
      const wait = this.backoff.delay(connectedAt === 0 ? 0 : monotonicMs() - connectedAt);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  private open(): Promise<Connection> {
    const c = this.config;
    const will = { topic: `${this.base}/availability`, payload: Buffer.from('offline'), qos: 1 as const, retain: true };
    return Connection.open({
      url: c.url,
      version: c.protocolVersion,
      clientId: this.clientId,
      keepaliveSeconds: c.keepaliveSeconds,
      username: c.username ?? undefined,
      password: this.secrets.password,
      will,
      tls: { ca: this.secrets.ca, cert: this.secrets.cert, key: this.secrets.key },
      timeoutMs: CONNECT_TIMEOUT_MS,
    });
  }

  /** Commands running now, and answered since memory last settled. */
  private running = 0;
  private sinceSettle = 0;

  /**
   * A burst of commands leaves garbage and a grown young generation that V8 keeps (+4.6 MB
   * anonymous after 1,000 status commands): once a burst of SETTLE_AFTER or more is over,
   * memory settles a second later, as after an upload burst (src/native/memory.ts).
   */
  private commandDone(): void {
    this.sinceSettle++;
    if (--this.running > 0 || this.sinceSettle < SETTLE_AFTER) return;
    this.sinceSettle = 0;
    settleSoon();
  }

  /** One connection's life: subscribe, announce, publish, until it closes. */
  private async serve(conn: Connection): Promise<void> {
    const c = this.config;
    const closed = new Promise<Error | undefined>((resolve) => conn.onClose(resolve));
    conn.base = this.base;
    const commands = new Commands(
      {
        base: this.base,
        discoveryPrefix: c.homeAssistant?.discoveryPrefix ?? null,
        principal: mqttPrincipal(c),
        run: this.deps.run,
        audit: this.deps.audit,
        client: new URL(c.url).hostname,
        count: (action, status) => this.deps.figures.command(action, status),
        reply: (topic, payload, correlationData) => {
          this.published++;
          return conn
            .publish({ topic, payload, qos: 1, retain: false, properties: correlationData ? { correlationData } : undefined })
            .catch(() => {}); // the link dropped: the reply is lost with it, as on HTTP
        },
        seen: this.seen,
      },
      MAX_PACKET,
    );
    const haStatus = c.homeAssistant ? `${c.homeAssistant.discoveryPrefix}/status` : undefined;
    conn.onMessage = (msg: Publish) => {
      this.received++;
      // P/command itself is under P/command/#: a command without an action (404).
      if (msg.topic.startsWith(`${this.base}/command/`) || msg.topic === `${this.base}/command`) {
        this.running++;
        void commands.handle(msg, c.protocolVersion).finally(() => this.commandDone());
      } else if (msg.topic === haStatus && msg.payload.toString() === 'online') {
        // Home Assistant restarted: it forgot non-retained discovery; spread the fleet over ~2 s.
        setTimeout(() => void this.discover(conn), Math.random() * 2_000).unref();
      }
    };
    try {
      await conn.subscribe(`${this.base}/command/#`, true);
      if (haStatus) await conn.subscribe(haStatus, false);
      await this.send(`${this.base}/availability`, 'online', true, conn);
    } catch (err) {
      conn.destroy(err as Error);
      throw err;
    }
    this.conn = conn;
    this.since = Date.now();
    this.deps.figures.connects.value++;
    this.deps.log.info(`mqtt: connected to ${c.url} as ${this.clientId}`);
    await this.publishState();
    await this.discover(conn);
    this.stateTimer = setInterval(() => void this.publishState(), c.stateIntervalSeconds * 1000).unref();
    const err = await closed;
    clearInterval(this.stateTimer);
    clearTimeout(this.changeTimer);
    this.changeTimer = undefined;
    this.conn = undefined;
    this.since = Date.now();
    if (this.stopping || this.reconnectNow) return;
    throw err ?? new Error('the broker closed the connection');
  }

  private fail(err: unknown): void {
    const text = err instanceof Error ? err.message : String(err);
    this.lastError = { time: isoTime(), text };
    if (!this.stopping) this.deps.log.warn(`mqtt: ${this.config.url}: ${text}`);
  }

  private stateSoon(): void {
    if (!this.conn || this.changeTimer) return;
    this.changeTimer = setTimeout(() => {
      this.changeTimer = undefined;
      void this.publishState();
    }, CHANGE_MS).unref();
  }

  private async publishState(): Promise<void> {
    let state: Record<string, unknown>;
    try {
      state = await this.deps.state();
    } catch (err) {
      this.deps.log.warn(`mqtt: state not published: ${String(err)}`);
      return;
    }
    this.lastState = state;
    await this.send(`${this.base}/state`, JSON.stringify(state), true);
  }

  private async discover(conn: Connection): Promise<void> {
    const ha = this.config.homeAssistant;
    if (!ha || conn.closed) return;
    const payload = discoveryPayload({
      deviceId: this.deps.deviceId,
      base: this.base,
      state: this.lastState,
      canRecord: this.config.commandScopes.includes('audio'),
    });
    await this.send(discoveryTopic(ha.discoveryPrefix, this.deps.deviceId), JSON.stringify(payload), true, conn);
  }

  /** QoS 1; nothing while disconnected (state is sent afresh at the next connect). */
  private async send(topic: string, payload: string, retain: boolean, conn = this.conn): Promise<void> {
    if (!conn || conn.closed) return;
    this.published++;
    await conn.publish({ topic, payload: Buffer.from(payload), qos: 1, retain }).catch(() => {});
  }
}

/** Commands in one burst before memory settles after it (a lone command costs no collection). */
const SETTLE_AFTER = 64;

/** Who a command acts as: `mqtt`, with the rights of mqtt.commandScopes. */
export function mqttPrincipal(config: MqttConfig): Principal {
  return { id: '', username: 'mqtt', scopes: new Set(config.commandScopes), directory: null, credential: 'mqtt' };
}

function sameSecrets(a: MqttSecrets, b: MqttSecrets): boolean {
  const eq = (x: Buffer | undefined, y: Buffer | undefined) => (x === undefined ? y === undefined : y !== undefined && x.equals(y));
  return eq(a.password, b.password) && eq(a.ca, b.ca) && eq(a.cert, b.cert) && eq(a.key, b.key);
}
