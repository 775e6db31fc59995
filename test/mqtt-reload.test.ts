// The MQTT link turned off and on again by SIGHUP (docs/mqtt.md): with `mqtt` set back to
// null the agent publishes `offline`, answers no command, `GET /api/v1/mqtt` says
// `{"enabled": false}`, and the link's metrics (present only with `mqtt` configured) are gone,
// the command counts included; set again, the link and its series come back. A real Mosquitto.
import { readFileSync, writeFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { bearer } from './helpers/http.ts';
import { scrape } from './helpers/metrics.ts';
import { mosquitto, request, subscribe } from './helpers/mqtt.ts';
import { until } from './helpers/proc.ts';

const ID = 'dev-mqtt-r';
const P = `device-agent/${ID}`;
const test = suite('mqtt link: SIGHUP off and on');

async function linkOf(agent: TestAgent, token: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${agent.url}/api/v1/mqtt`, { headers: bearer(token) });
  assert.is(res.status, 200);
  return (await res.json()) as Record<string, unknown>;
}

/** The samples of the link's series (device_agent_mqtt_*), as written. */
async function mqttSeries(agent: TestAgent): Promise<Record<string, number>> {
  return Object.fromEntries([...(await scrape(agent))].filter(([k]) => k.startsWith('device_agent_mqtt_')));
}

function reload(agent: TestAgent, mqtt: Record<string, unknown> | null): void {
  const config = JSON.parse(readFileSync(agent.configFile, 'utf8'));
  config.mqtt = mqtt;
  writeFileSync(agent.configFile, JSON.stringify(config));
  agent.child.kill('SIGHUP');
}

test('mqtt set to null: offline, no command answered, {"enabled": false}, every device_agent_mqtt_* series gone; set again: back', async () => {
  const broker = await mosquitto();
  const mqtt = { url: broker.url };
  const agent = await startAgent({ config: { deviceId: ID, audio: { device: 'null' }, mqtt } });
  const sub = subscribe(broker.port, [`${P}/availability`]);
  try {
    const token = await agent.login();
    await sub.next(`${P}/availability`, (m) => m.payload === 'online');
    const answer = JSON.parse((await request(broker.port, `${P}/command/status`, '{}', 'replies/a'))!);
    assert.is(answer.status, 200);
    const on = await until('the command counted', async () => {
      const s = await mqttSeries(agent);
      return s['device_agent_mqtt_commands_total{action="status",status="200"}'] === 1 && s;
    });
    assert.equal(on, {
      device_agent_mqtt_connected: 1,
      device_agent_mqtt_connects_total: 1,
      'device_agent_mqtt_commands_total{action="status",status="200"}': 1,
    });

    let seen = sub.messages.length;
    reload(agent, null);
    await sub.next(`${P}/availability`, (m) => m.payload === 'offline', 20_000, seen);
    await until('the link off in the API', async () => (await linkOf(agent, token)).enabled === false);
    assert.equal(await linkOf(agent, token), { enabled: false });
    assert.equal(await mqttSeries(agent), {}, 'no series of the link while it is off');
    assert.is(await request(broker.port, `${P}/command/status`, '{}', 'replies/b', 'c-2', 3), undefined, 'no command answered');
    assert.equal(await mqttSeries(agent), {}, 'still none after a command sent to the topic');
    assert.not.match(
      await (await fetch(`${agent.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text(),
      /device_agent_mqtt/,
      'nor HELP or TYPE lines',
    );

    seen = sub.messages.length;
    reload(agent, mqtt);
    await sub.next(`${P}/availability`, (m) => m.payload === 'online', 20_000, seen);
    await until('connected again', async () => (await linkOf(agent, token)).connected === true);
    const back = await until('the series back', async () => {
      const s = await mqttSeries(agent);
      return s.device_agent_mqtt_connected === 1 && s;
    });
    assert.ok(back.device_agent_mqtt_connects_total! >= 1, JSON.stringify(back));
    const again = JSON.parse((await request(broker.port, `${P}/command/status`, '{}', 'replies/c', 'c-3'))!);
    assert.is(again.status, 200);
  } finally {
    sub.close();
    await agent.cleanup();
    await broker.cleanup();
  }
});

test.run();
