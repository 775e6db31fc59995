// One MQTT connection: socket (TCP or TLS), CONNECT/CONNACK, keep-alive, QoS 0/1 publish and
// subscribe, incoming PUBLISH acknowledged. No reconnecting here: src/mqtt/link.ts runs the one loop.
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import * as packet from './packet.ts';
import type { Packet, Publish, Version } from './packet.ts';

export interface ConnectionOptions extends Omit<packet.ConnectOptions, 'maximumPacketSize'> {
  url: string;
  tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer };
  /** Connect and CONNACK within this long, or the attempt fails. */
  timeoutMs: number;
}

/** The largest packet accepted from the broker: commands are small JSON bodies. */
export const MAX_PACKET = 256 * 1024;

/** CONNACK reason codes a person can act on (MQTT 5 3.2.2.2 and 3.1.1's 1-5). */
const REFUSALS = new Map<number, string>([
  [1, 'unacceptable protocol version'],
  [2, 'client identifier rejected'],
  [3, 'server unavailable'],
  [4, 'bad user name or password'],
  [5, 'not authorized'],
  [0x84, 'unsupported protocol version'],
  [0x85, 'client identifier not valid'],
  [0x86, 'bad user name or password'],
  [0x87, 'not authorized'],
  [0x88, 'server unavailable'],
  [0x89, 'server busy'],
  [0x8a, 'banned'],
]);

type Pending = { resolve: (p: Packet) => void; reject: (e: Error) => void };

export class Connection {
  private readonly decoder: packet.Decoder;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private pingTimer: NodeJS.Timeout | undefined;
  private awaitingPong = false;
  private closedWith: Error | undefined;
  private readonly closeListeners: Array<(err: Error | undefined) => void> = [];
  onMessage: (p: Publish) => void = () => {};
  /** The topics' base this connection announced itself under (a reconfigure may change it). */
  base = '';

  private constructor(
    private readonly socket: Socket,
    readonly version: Version,
  ) {
    this.decoder = new packet.Decoder(version, MAX_PACKET);
  }

  /** Resolves once the broker accepted the connection (CONNACK 0); rejects with the reason otherwise. */
  static open(o: ConnectionOptions): Promise<Connection> {
    const url = new URL(o.url);
    const secure = url.protocol === 'mqtts:';
    const port = Number(url.port || (secure ? 8883 : 1883));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const socket = secure
      ? tlsConnect({
          host,
          port,
          servername: /^[\d.]+$|:/.test(host) ? undefined : host,
          ca: o.tls?.ca,
          cert: o.tls?.cert,
          key: o.tls?.key,
        })
      : tcpConnect({ host, port });
    socket.setNoDelay(true);
    const conn = new Connection(socket, o.version);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => conn.destroy(new Error(`no answer from the broker within ${o.timeoutMs / 1000} s`)), o.timeoutMs);
      let accepted = false;
      conn.onClose((err) => {
        clearTimeout(timer);
        if (!accepted) reject(err ?? new Error('the broker closed the connection'));
      });
      conn.pending.set(-1, {
        resolve: (p) => {
          clearTimeout(timer);
          if (p.type !== 'connack') return;
          if (p.code !== 0) {
            conn.destroy(new Error(`the broker refused the connection: ${REFUSALS.get(p.code) ?? `reason code ${p.code}`}`));
            return;
          }
          accepted = true;
          conn.startKeepalive(p.properties.serverKeepAlive ?? o.keepaliveSeconds);
          resolve(conn);
        },
        reject: () => {},
      });
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        socket.write(packet.connect({ ...o, maximumPacketSize: MAX_PACKET }));
      });
      socket.on('data', (chunk: Buffer) => conn.read(chunk));
      socket.on('error', (err) => conn.destroy(err));
      socket.on('close', () => conn.destroy(undefined));
    });
  }

  get closed(): boolean {
    return this.closedWith !== undefined || this.socket.destroyed;
  }

  /** Called once when the connection ends: with the error, or undefined for a plain close. */
  onClose(listener: (err: Error | undefined) => void): void {
    this.closeListeners.push(listener);
  }

  /** QoS 1 resolves at the broker's PUBACK; QoS 0 once written. */
  publish(p: Omit<Publish, 'packetId'>): Promise<void> {
    if (this.closed) return Promise.reject(new Error('not connected'));
    if (p.qos === 0) {
      this.socket.write(packet.publish(this.version, p));
      return Promise.resolve();
    }
    const packetId = this.takeId();
    return this.request(packetId, packet.publish(this.version, { ...p, qos: 1, packetId })).then((ack) => {
      if (ack.type === 'puback' && ack.code >= 0x80) throw new Error(`the broker refused a publish on ${p.topic}: reason code ${ack.code}`);
    });
  }

  subscribe(filter: string, retainAsPublished: boolean): Promise<void> {
    const packetId = this.takeId();
    return this.request(packetId, packet.subscribe(this.version, packetId, filter, 1, retainAsPublished)).then((ack) => {
      const code = ack.type === 'suback' ? ack.codes[0] : undefined;
      if (code === undefined || code >= 0x80) throw new Error(`the broker refused the subscription to ${filter}`);
    });
  }

  /** A normal DISCONNECT (the broker drops the will), then the socket ends. */
  end(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.onClose(() => resolve());
      this.socket.end(packet.disconnect());
      setTimeout(() => this.destroy(undefined), 2000).unref();
    });
  }

  destroy(err: Error | undefined): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = err ?? new Error('closed');
    clearInterval(this.pingTimer);
    this.socket.destroy();
    for (const p of this.pending.values()) p.reject(this.closedWith);
    this.pending.clear();
    for (const l of this.closeListeners.splice(0)) l(err);
  }

  private takeId(): number {
    for (;;) {
      const id = this.nextId;
      this.nextId = id === 0xffff ? 1 : id + 1;
      if (!this.pending.has(id)) return id;
    }
  }

  private request(id: number, bytes: Buffer): Promise<Packet> {
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.write(bytes);
    });
  }

  private startKeepalive(seconds: number): void {
    if (seconds === 0) return;
    // One PINGREQ per keep-alive period; no PINGRESP by the next one: the link is dead.
    this.pingTimer = setInterval(() => {
      if (this.awaitingPong) {
        this.destroy(new Error('the broker did not answer a ping'));
        return;
      }
      this.awaitingPong = true;
      this.socket.write(packet.pingreq());
    }, seconds * 1000).unref();
  }

  private read(chunk: Buffer): void {
    let packets: Packet[];
    try {
      packets = this.decoder.push(chunk);
    } catch (err) {
      this.destroy(err as Error);
      return;
    }
    for (const p of packets) {
      if (this.closed) return;
      switch (p.type) {
        case 'connack': {
          const waiting = this.pending.get(-1);
          this.pending.delete(-1);
          waiting?.resolve(p);
          break;
        }
        case 'puback':
        case 'suback': {
          const waiting = this.pending.get(p.packetId);
          this.pending.delete(p.packetId);
          waiting?.resolve(p);
          break;
        }
        case 'pingresp':
          this.awaitingPong = false;
          break;
        case 'publish':
          if (p.qos > 0 && p.packetId !== undefined) this.socket.write(packet.puback(p.packetId));
          this.onMessage(p);
          break;
        case 'disconnect':
          this.destroy(new Error(`the broker disconnected: ${p.properties.reasonString ?? `reason code ${p.code}`}`));
          break;
        default:
          break; // QoS 2 flows are never asked for (every subscription is QoS 1)
      }
    }
  }
}
