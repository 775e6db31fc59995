// MQTT 3.1.1 and 5 packets, the few the link uses: encoders for what the agent sends and a
// stream decoder for what a broker sends. docs/decisions.md says why this is not MQTT.js
// (its connected client cost +27 MB RSS against a +6 MB budget).

export type Version = 4 | 5;

/** MQTT 5 properties the link reads or writes (the others are skipped when read). */
export interface Properties {
  responseTopic?: string;
  correlationData?: Buffer;
  sessionExpiryInterval?: number;
  serverKeepAlive?: number;
  maximumPacketSize?: number;
  reasonString?: string;
  topicAlias?: number;
  receiveMaximum?: number;
}

export interface Publish {
  topic: string;
  payload: Buffer;
  qos: 0 | 1 | 2;
  retain: boolean;
  dup?: boolean;
  packetId?: number;
  properties?: Properties;
  /**
   * A PUBLISH over the size the link accepts: its length. Its topic, flags and packet id are
   * read (so it is acknowledged); its payload is skipped unread and `payload` is empty.
   */
  oversize?: number;
}

export type Packet =
  | { type: 'connack'; sessionPresent: boolean; code: number; properties: Properties }
  | ({ type: 'publish' } & Publish)
  | { type: 'puback'; packetId: number; code: number }
  | { type: 'suback'; packetId: number; codes: number[] }
  | { type: 'pingresp' }
  | { type: 'disconnect'; code: number; properties: Properties }
  | { type: 'other'; code: number };

export class ProtocolError extends Error {}

// Property identifiers (MQTT 5, 2.2.2.2) and how each is encoded.
const P = {
  payloadFormat: 0x01,
  messageExpiry: 0x02,
  contentType: 0x03,
  responseTopic: 0x08,
  correlationData: 0x09,
  subscriptionId: 0x0b,
  sessionExpiry: 0x11,
  assignedClientId: 0x12,
  serverKeepAlive: 0x13,
  reasonString: 0x1f,
  receiveMaximum: 0x21,
  topicAlias: 0x23,
  userProperty: 0x26,
  maximumPacketSize: 0x27,
} as const;
type Kind = 'byte' | 'u16' | 'u32' | 'varint' | 'string' | 'binary' | 'pair';
const KIND = new Map<number, Kind>(
  (
    [
      ['byte', [0x01, 0x17, 0x19, 0x24, 0x25, 0x28, 0x29, 0x2a]],
      ['u32', [0x02, 0x11, 0x18, 0x27]],
      ['string', [0x03, 0x08, 0x12, 0x15, 0x1a, 0x1c, 0x1f]],
      ['binary', [0x09, 0x16]],
      ['varint', [0x0b]],
      ['u16', [0x13, 0x21, 0x22, 0x23]],
      ['pair', [0x26]],
    ] as Array<[Kind, number[]]>
  ).flatMap(([kind, ids]) => ids.map((id): [number, Kind] => [id, kind])),
);

/** Builds a packet body from parts. */
class Writer {
  readonly parts: Buffer[] = [];
  byte(v: number): this {
    this.parts.push(Buffer.from([v]));
    return this;
  }
  u16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(v);
    this.parts.push(b);
    return this;
  }
  u32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v);
    this.parts.push(b);
    return this;
  }
  binary(v: Buffer): this {
    if (v.length > 0xffff) throw new ProtocolError('a string or binary field is longer than 65535 bytes');
    this.u16(v.length);
    this.parts.push(v);
    return this;
  }
  string(v: string): this {
    return this.binary(Buffer.from(v, 'utf8'));
  }
  raw(v: Buffer): this {
    this.parts.push(v);
    return this;
  }
  get length(): number {
    let n = 0;
    for (const p of this.parts) n += p.length;
    return n;
  }
  concat(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export function varint(n: number): Buffer {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return Buffer.from(out);
}

function properties(p: Properties | undefined): Buffer {
  const w = new Writer();
  if (p?.sessionExpiryInterval !== undefined) w.byte(P.sessionExpiry).u32(p.sessionExpiryInterval);
  if (p?.receiveMaximum !== undefined) w.byte(P.receiveMaximum).u16(p.receiveMaximum);
  if (p?.maximumPacketSize !== undefined) w.byte(P.maximumPacketSize).u32(p.maximumPacketSize);
  if (p?.responseTopic !== undefined) w.byte(P.responseTopic).string(p.responseTopic);
  if (p?.correlationData !== undefined) w.byte(P.correlationData).binary(p.correlationData);
  const body = w.concat();
  return Buffer.concat([varint(body.length), body]);
}

function frame(first: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([first]), varint(body.length), body]);
}

export interface ConnectOptions {
  version: Version;
  clientId: string;
  keepaliveSeconds: number;
  username?: string;
  password?: Buffer;
  will?: { topic: string; payload: Buffer; qos: 0 | 1; retain: boolean };
  /** MQTT 5: the largest packet the agent accepts (the broker does not send larger). */
  maximumPacketSize?: number;
}

export function connect(o: ConnectOptions): Buffer {
  const w = new Writer().string('MQTT').byte(o.version);
  // Clean start (clean session in 3.1.1): no session, so nothing queued while away is replayed.
  let flags = 0x02;
  if (o.will) flags |= 0x04 | (o.will.qos << 3) | (o.will.retain ? 0x20 : 0);
  if (o.username !== undefined) flags |= 0x80;
  if (o.password !== undefined) flags |= 0x40;
  w.byte(flags).u16(o.keepaliveSeconds);
  if (o.version === 5) w.raw(properties({ sessionExpiryInterval: 0, maximumPacketSize: o.maximumPacketSize }));
  w.string(o.clientId);
  if (o.will) {
    if (o.version === 5) w.raw(properties(undefined));
    w.string(o.will.topic).binary(o.will.payload);
  }
  if (o.username !== undefined) w.string(o.username);
  if (o.password !== undefined) w.binary(o.password);
  return frame(0x10, w.concat());
}

export function publish(version: Version, p: Publish): Buffer {
  const w = new Writer().string(p.topic);
  if (p.qos > 0) w.u16(p.packetId ?? 0);
  if (version === 5) w.raw(properties(p.properties));
  w.raw(p.payload);
  return frame(0x30 | (p.dup ? 0x08 : 0) | (p.qos << 1) | (p.retain ? 1 : 0), w.concat());
}

export function puback(packetId: number): Buffer {
  // MQTT 5 allows omitting the reason code (success) and properties: the same bytes as 3.1.1.
  return frame(0x40, new Writer().u16(packetId).concat());
}

/** One filter; `retainAsPublished` (MQTT 5) keeps the retain flag of retained messages forwarded live. */
export function subscribe(version: Version, packetId: number, filter: string, qos: 0 | 1, retainAsPublished: boolean): Buffer {
  const w = new Writer().u16(packetId);
  if (version === 5) w.raw(properties(undefined));
  w.string(filter).byte(qos | (version === 5 && retainAsPublished ? 0x08 : 0));
  return frame(0x82, w.concat());
}

export const pingreq = (): Buffer => Buffer.from([0xc0, 0]);
/** Normal disconnection: the broker discards the will. */
export const disconnect = (): Buffer => Buffer.from([0xe0, 0]);

/** Reads packets out of a byte stream; `push` returns those completed by a chunk. */
export class Decoder {
  private buf: Buffer = Buffer.alloc(0);

  constructor(
    private readonly version: Version,
    private readonly maxPacket: number,
  ) {}

  /** Bytes of an oversized PUBLISH still to be skipped as they arrive. */
  private skip = 0;

  push(chunk: Buffer): Packet[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: Packet[] = [];
    for (;;) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, this.buf.length);
        this.buf = this.buf.subarray(n);
        this.skip -= n;
        if (this.skip > 0) break;
      }
      if (this.buf.length < 2) break;
      let len = 0;
      let mul = 1;
      let i = 1;
      let complete = false;
      for (; i <= 4 && i < this.buf.length; i++) {
        const b = this.buf[i]!;
        len += (b & 0x7f) * mul;
        mul *= 128;
        if ((b & 0x80) === 0) {
          complete = true;
          break;
        }
      }
      if (!complete) {
        if (i > 4) throw new ProtocolError('malformed remaining length');
        break;
      }
      const start = i + 1;
      if (len > this.maxPacket) {
        // A broker speaking 3.1.1 knows no limit of ours: one oversized command must not end
        // the connection (a retained one would end every connection after it). Its head is
        // read, so it can be acknowledged and answered; the rest is skipped.
        if (this.buf[0]! >> 4 !== 3) throw new ProtocolError(`a packet of ${len} bytes is over the ${this.maxPacket} bytes accepted`);
        const head = this.oversized(this.buf[0]!, this.buf.subarray(start), len);
        if (!head) break;
        out.push(head);
        this.skip = start + len;
        continue;
      }
      if (this.buf.length < start + len) break;
      out.push(this.parse(this.buf[0]!, this.buf.subarray(start, start + len)));
      this.buf = this.buf.subarray(start + len);
    }
    return out;
  }

  /** An oversized PUBLISH's topic, flags and packet id, once its first bytes are in (else null). */
  private oversized(first: number, body: Buffer, len: number): Packet | null {
    const qos = ((first >> 1) & 3) as 0 | 1 | 2;
    if (body.length < 2) return null;
    const topicEnd = 2 + body.readUInt16BE(0);
    const headEnd = topicEnd + (qos > 0 ? 2 : 0);
    if (headEnd > len) throw new ProtocolError('packet shorter than its fields');
    if (body.length < headEnd) return null;
    const topic = body.toString('utf8', 2, topicEnd);
    const packetId = qos > 0 ? body.readUInt16BE(topicEnd) : undefined;
    return { type: 'publish', topic, qos, retain: (first & 1) === 1, packetId, payload: Buffer.alloc(0), oversize: len };
  }

  private parse(first: number, body: Buffer): Packet {
    const r = new Reader(body);
    switch (first >> 4) {
      case 2: {
        const sessionPresent = (r.byte() & 1) === 1;
        const code = r.byte();
        return { type: 'connack', sessionPresent, code, properties: this.version === 5 && r.more() ? r.properties() : {} };
      }
      case 3: {
        const bits = (first >> 1) & 3;
        if (bits === 3) throw new ProtocolError('PUBLISH with QoS 3');
        const qos = bits as 0 | 1 | 2;
        const topic = r.string();
        const packetId = qos > 0 ? r.u16() : undefined;
        const properties = this.version === 5 ? r.properties() : {};
        return { type: 'publish', topic, qos, retain: (first & 1) === 1, dup: (first & 8) === 8, packetId, properties, payload: r.rest() };
      }
      case 4:
        return { type: 'puback', packetId: r.u16(), code: r.more() ? r.byte() : 0 };
      case 9: {
        const packetId = r.u16();
        if (this.version === 5) r.properties();
        const codes: number[] = [];
        while (r.more()) codes.push(r.byte());
        return { type: 'suback', packetId, codes };
      }
      case 13:
        return { type: 'pingresp' };
      case 14:
        return { type: 'disconnect', code: r.more() ? r.byte() : 0, properties: this.version === 5 && r.more() ? r.properties() : {} };
      default:
        return { type: 'other', code: first >> 4 };
    }
  }
}

class Reader {
  private at = 0;
  constructor(private readonly b: Buffer) {}
  more(): boolean {
    return this.at < this.b.length;
  }
  private need(n: number): void {
    if (this.at + n > this.b.length) throw new ProtocolError('packet shorter than its fields');
  }
  byte(): number {
    this.need(1);
    return this.b[this.at++]!;
  }
  u16(): number {
    this.need(2);
    const v = this.b.readUInt16BE(this.at);
    this.at += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.b.readUInt32BE(this.at);
    this.at += 4;
    return v;
  }
  varint(): number {
    let v = 0;
    let mul = 1;
    for (let i = 0; i < 4; i++) {
      const b = this.byte();
      v += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return v;
      mul *= 128;
    }
    throw new ProtocolError('malformed variable byte integer');
  }
  binary(): Buffer {
    const n = this.u16();
    this.need(n);
    const v = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
  string(): string {
    return this.binary().toString('utf8');
  }
  rest(): Buffer {
    const v = this.b.subarray(this.at);
    this.at = this.b.length;
    return v;
  }
  properties(): Properties {
    const end = this.varint() + this.at;
    if (end > this.b.length) throw new ProtocolError('properties longer than the packet');
    const p: Properties = {};
    while (this.at < end) {
      const id = this.varint();
      const kind = KIND.get(id);
      if (!kind) throw new ProtocolError(`unknown property 0x${id.toString(16)}`);
      let v: number | string | Buffer;
      if (kind === 'byte') v = this.byte();
      else if (kind === 'u16') v = this.u16();
      else if (kind === 'u32') v = this.u32();
      else if (kind === 'varint') v = this.varint();
      else if (kind === 'string') v = this.string();
      else if (kind === 'binary')
        v = Buffer.from(this.binary()); // a copy: kept past this packet (the reply's)
      else {
        this.string();
        v = this.string();
      }
      if (id === P.responseTopic) p.responseTopic = v as string;
      else if (id === P.correlationData) p.correlationData = v as Buffer;
      else if (id === P.serverKeepAlive) p.serverKeepAlive = v as number;
      else if (id === P.reasonString) p.reasonString = v as string;
      else if (id === P.topicAlias) p.topicAlias = v as number;
      else if (id === P.maximumPacketSize) p.maximumPacketSize = v as number;
      else if (id === P.receiveMaximum) p.receiveMaximum = v as number;
    }
    return p;
  }
}
