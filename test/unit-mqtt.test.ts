import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_AUDIT } from '../src/audit/trail.ts';
import { ConfigError, parseConfig } from '../src/config/config.ts';
import { Backoff } from '../src/mqtt/backoff.ts';
import { Commands, type Outcome } from '../src/mqtt/commands.ts';
import type { Publish } from '../src/mqtt/packet.ts';

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

function harness() {
  const runs: string[] = [];
  const replies: Array<{ topic: string; payload: unknown; correlation?: string }> = [];
  const c = new Commands({
    base: 'device-agent/d1',
    discoveryPrefix: 'homeassistant',
    principal: { id: '', username: 'mqtt', scopes: new Set(['status', 'audio']), directory: null, credential: 'mqtt' },
    run: async (action): Promise<Outcome> => {
      runs.push(action);
      return { status: 200, body: { n: runs.length } };
    },
    audit: NO_AUDIT,
    client: 'broker',
    count: () => {},
    reply: async (topic, payload, correlation) => {
      replies.push({ topic, payload: JSON.parse(payload.toString()), correlation: correlation?.toString() });
    },
  });
  const send = (action: string, payload: unknown, props?: Publish['properties']) =>
    c.handle(
      {
        topic: `device-agent/d1/command/${action}`,
        payload: Buffer.isBuffer(payload) ? payload : Buffer.from(JSON.stringify(payload)),
        qos: 1,
        retain: false,
        properties: props,
      },
      5,
    );
  return { runs, replies, send };
}

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

commands("read-only actions run again; a non-JSON payload is the HTTP routes' 400", async () => {
  const h = harness();
  const props = { responseTopic: 'r/1', correlationData: Buffer.from('x') };
  await h.send('status', {}, props);
  await h.send('status', {}, props);
  assert.equal(h.runs, ['status', 'status']);
  const c = harness();
  await c.send('status', Buffer.from('{not json'), props);
  assert.equal(c.replies[0]?.payload, {
    status: 400,
    body: { error: 'request body must be a JSON object (Content-Type: application/json)' },
  });
});

backoff.run();
config.run();
commands.run();
