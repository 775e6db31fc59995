import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_AUDIT } from '../src/audit/trail.ts';
import { ConfigError, parseConfig } from '../src/config/config.ts';
import { Backoff } from '../src/mqtt/backoff.ts';
import { Commands, type Outcome, type Seen } from '../src/mqtt/commands.ts';
import { Decoder, publish as publishPacket, type Publish } from '../src/mqtt/packet.ts';

const backoff = suite('mqtt reconnect backoff');

backoff('doubles from 1 s to 5 minutes, ±20 %, and resets only after 60 s connected', () => {
  const mid = new Backoff(() => 0.5);
  assert.equal(
    Array.from({ length: 11 }, () => mid.delay(0)),
    [1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 300000, 300000],
  );
  assert.is(mid.delay(59_999), 300000); // a short connection does not reset
  assert.is(mid.delay(60_000), 1000);
  assert.is(new Backoff(() => 0).delay(0), 800);
  assert.is(new Backoff(() => 1).delay(0), 1200);
});

backoff('a broker down for 10 minutes sees at most 12 attempts, even at the shortest jitter', () => {
  for (const r of [0, 0.5, 1]) {
    const b = new Backoff(() => r);
    let t = 0;
    let attempts = 0;
    for (;;) {
      t += b.delay(0);
      if (t > 600_000) break;
      attempts++;
    }
    assert.ok(attempts <= 12, `${attempts} attempts at random ${r}`);
  }
});

const config = suite('mqtt config');

const bad: Array<[unknown, RegExp]> = [
  [{ url: 'mqtt://u:p@h:1883' }, /^mqtt\.url: credentials in the URL are refused/],
  [{ url: 'mqtt://u@h' }, /^mqtt\.url: credentials in the URL are refused/],
  [{ url: 'http://h' }, /^mqtt\.url: must start with mqtt:\/\/ or mqtts:\/\//],
  [{}, /^mqtt\.url: is required/],
  [{ url: 'mqtt://h', protocolVersion: 3 }, /^mqtt\.protocolVersion: must be 5 or 4/],
  [{ url: 'mqtt://h', keepaliveSeconds: 4 }, /^mqtt\.keepaliveSeconds: must be between 5 and 600/],
  [{ url: 'mqtt://h', stateIntervalSeconds: 3601 }, /^mqtt\.stateIntervalSeconds: must be between 5 and 3600/],
  [{ url: 'mqtt://h', topicPrefix: 'a.b' }, /^mqtt\.topicPrefix: must be topic levels/],
  [{ url: 'mqtt://h', commandScopes: ['root'] }, /^mqtt\.commandScopes: unknown scope "root"/],
  [{ url: 'mqtt://h', caFile: 'ca.pem' }, /^mqtt\.caFile: needs an mqtts:\/\/ url/],
  [{ url: 'mqtts://h', certFile: 'c.pem' }, /^mqtt\.keyFile: mqtt\.certFile and mqtt\.keyFile go together/],
  [{ url: 'mqtt://h', passwordFile: 'pw' }, /^mqtt\.passwordFile: needs mqtt\.username/],
  [{ url: 'mqtt://h', homeAssistant: { discoveryPrefix: 'a/#' } }, /^mqtt\.homeAssistant\.discoveryPrefix: must be topic levels/],
  [{ url: 'mqtt://h', color: 1 }, /^mqtt\.color: unknown key/],
];
for (const [mqtt, re] of bad) {
  config(`refuses ${JSON.stringify(mqtt)}, naming the key`, () => {
    assert.throws(
      () => parseConfig({ mqtt }, '/etc/device-agent'),
      (err: Error) => err instanceof ConfigError && re.test(err.message) && !err.message.includes(':p@'),
    );
  });
}

config('fills the defaults and resolves files against the config directory', () => {
  const c = parseConfig({ mqtt: { url: 'mqtts://broker.example:8883/', username: 'd', passwordFile: 'pw', caFile: 'ca.pem' } }, '/etc/da');
  assert.equal(c.mqtt, {
    url: 'mqtts://broker.example:8883',
    protocolVersion: 5,
    username: 'd',
    passwordFile: '/etc/da/pw',
    caFile: '/etc/da/ca.pem',
    certFile: null,
    keyFile: null,
    topicPrefix: 'device-agent',
    keepaliveSeconds: 30,
    stateIntervalSeconds: 30,
    commandScopes: ['status'],
    homeAssistant: { discoveryPrefix: 'homeassistant' },
  });
  assert.is(parseConfig({}, '/').mqtt, null);
});

const commands = suite('mqtt commands run once (in-process)');
const packets = suite('mqtt packets');

function harness(seen: Seen = new Map()) {
  const runs: string[] = [];
  const inputs: unknown[] = [];
  const replies: Array<{ topic: string; payload: unknown; correlation?: string }> = [];
  const c = new Commands(
    {
      base: 'device-agent/d1',
      discoveryPrefix: 'homeassistant',
      principal: { id: '', username: 'mqtt', scopes: new Set(['status', 'audio']), directory: null, credential: 'mqtt' },
      run: async (action, _principal, input): Promise<Outcome> => {
        runs.push(action);
        inputs.push(input);
        return { status: 200, body: { n: runs.length } };
      },
      audit: NO_AUDIT,
      client: 'broker',
      count: () => {},
      reply: async (topic, payload, correlation) => {
        replies.push({ topic, payload: JSON.parse(payload.toString()), correlation: correlation?.toString() });
      },
      seen,
    },
    1000,
  );
  const send = (action: string, payload: unknown, props?: Publish['properties'], more: Partial<Publish> = {}) =>
    c.handle(
      {
        topic: `device-agent/d1/command/${action}`,
        payload: Buffer.isBuffer(payload) ? payload : Buffer.from(JSON.stringify(payload)),
        qos: 1,
        retain: false,
        properties: props,
        ...more,
      },
      5,
    );
  return { runs, inputs, replies, send };
}

commands('the commands seen outlive a connection: a retry after a reconnect is not run again', async () => {
  const seen: Seen = new Map();
  const props = { responseTopic: 'r/1', correlationData: Buffer.from('abc') };
  const before = harness(seen);
  await before.send('recording/start', { duration: 1 }, props);
  const after = harness(seen); // the link's next connection
  await after.send('recording/start', { duration: 1 }, props);
  assert.equal(after.runs, []);
  assert.equal(after.replies, [{ topic: 'r/1', payload: { status: 200, body: { n: 1 } }, correlation: 'abc' }]);
});

commands("a reply topic on another device's command topics is refused, not run: the reply would be a command to it", async () => {
  const h = harness();
  for (const replyTo of ['device-agent/d2/command/recording/stop', 'device-agent/d2/command']) {
    await h.send('recording/start', { id: replyTo, replyTo, body: { duration: 1 } });
  }
  await h.send('status', { replyTo: 'device-agent/d2/reply/status', body: {} }); // its reply topics are fine
  assert.equal(h.runs, ['status']);
  assert.equal(
    h.replies.map((r) => r.topic),
    ['device-agent/d2/reply/status'],
  );
});

commands('an empty retained message (clearing a retained command) is not answered; an oversized command is 413, not run', async () => {
  const h = harness();
  await h.send('recording/stop', Buffer.alloc(0), undefined, { retain: true });
  assert.equal([h.runs, h.replies], [[], []]);
  await h.send('recording/stop', Buffer.alloc(0), undefined, { oversize: 5000 });
  await h.send('recording/stop', Buffer.alloc(0), undefined, { oversize: 5000, retain: true });
  assert.equal(h.runs, []);
  assert.equal(
    h.replies.map((r) => r.payload),
    [
      { status: 413, body: { error: 'request body too large, max 1000 bytes' } },
      { status: 400, body: { error: 'retained commands are not run' } },
    ],
  );
});

packets('an oversized PUBLISH is acknowledged and skipped, arriving in pieces; the packets after it are read', () => {
  const d = new Decoder(4, 1000);
  const big = publishPacket(4, { topic: 'p/command/status', payload: Buffer.alloc(5000, 0x61), qos: 1, retain: true, packetId: 42 });
  const small = publishPacket(4, { topic: 'p/command/status', payload: Buffer.from('{}'), qos: 1, retain: false, packetId: 43 });
  const all = Buffer.concat([big, small]);
  const got = [];
  for (let at = 0; at < all.length; at += 7) got.push(...d.push(all.subarray(at, at + 7)));
  assert.equal(
    got.map((p) => p.type === 'publish' && [p.topic, p.packetId, p.retain, p.oversize, p.payload.toString()]),
    [
      ['p/command/status', 42, true, big.length - 3, ''],
      ['p/command/status', 43, false, undefined, '{}'],
    ],
  );
  assert.throws(() => new Decoder(4, 10).push(Buffer.from([0x90, 20, ...Buffer.alloc(20)])), /over the 10 bytes accepted/);
});

commands('a changing action with a seen correlation id is not run again; its first reply is sent again', async () => {
  const h = harness();
  const props = { responseTopic: 'r/1', correlationData: Buffer.from('abc') };
  await h.send('recording/start', { duration: 1 }, props);
  await h.send('recording/start', { duration: 1 }, props);
  assert.equal(h.runs, ['recording/start']);
  assert.equal(h.replies[1], { topic: 'r/1', payload: { status: 200, body: { n: 1 } }, correlation: 'abc' });
  await h.send('recording/stop', {}, props); // another action, same id: runs
  await h.send('recording/start', { id: 5, body: {} }); // an envelope's id
  await h.send('recording/start', { id: 5, body: {} });
  assert.equal(h.runs, ['recording/start', 'recording/stop', 'recording/start']);
  assert.equal(h.replies[4], {
    topic: 'device-agent/d1/reply/recording/start',
    payload: { id: 5, status: 200, body: { n: 3 } },
    correlation: undefined,
  });
});

commands('read-only actions run again; a non-JSON payload reaches the operation as text (its scope check, then its 400)', async () => {
  const h = harness();
  const props = { responseTopic: 'r/1', correlationData: Buffer.from('x') };
  await h.send('status', {}, props);
  await h.send('status', {}, props);
  assert.equal(h.runs, ['status', 'status']);
  const c = harness();
  await c.send('recording/start', Buffer.from('{not json'), props);
  await c.send('recording/start', Buffer.from('{not json'), props); // a 400 is not kept as "run once"
  assert.equal(c.inputs, ['{not json', '{not json']);
});

backoff.run();
config.run();
commands.run();
packets.run();
