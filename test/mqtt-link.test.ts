import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { makeDir, runCli, startAgent, type TestAgent } from './helpers/agent.ts';
import { startRecording } from './helpers/audio.ts';
import { bearer } from './helpers/http.ts';
import { auditEvents } from './helpers/log.ts';
import { type Broker, mosquitto, natsMqtt, passwordFile, pub, request, subscribe } from './helpers/mqtt.ts';
import { until } from './helpers/proc.ts';
import { openEvents } from './helpers/sse.ts';
import { makeCa, makeClientCert, makeServerCert } from './helpers/tls.ts';

const ID = 'dev-mqtt-1';
const P = `device-agent/${ID}`;

async function agentOn(broker: Broker, mqtt: Record<string, unknown> = {}): Promise<TestAgent> {
  return startAgent({ config: { deviceId: ID, audio: { device: 'null' }, mqtt: { url: broker.url, ...mqtt } } });
}

async function linkOf(agent: TestAgent): Promise<Record<string, unknown>> {
  const token = await agent.login();
  const res = await fetch(`${agent.url}/api/v1/mqtt`, { headers: bearer(token) });
  assert.is(res.status, 200);
  return (await res.json()) as Record<string, unknown>;
}

const link = suite('mqtt link (Mosquitto, MQTT 5)');

link('announces online (retained), publishes state (retained) with recording, schedule and outbox objects', async () => {
  const broker = await mosquitto();
  const agent = await agentOn(broker);
  const sub = subscribe(broker.port, [`${P}/#`]);
  try {
    const online = await sub.next(`${P}/availability`, (m) => m.payload === 'online');
    assert.ok(online);
    const state = JSON.parse((await sub.next(`${P}/state`)).payload);
    assert.is(state.deviceId, ID);
    assert.is(state.recording.state, 'idle');
    assert.equal(state.outbox, { enabled: false, state: 'off' });
    assert.is(state.schedule.state, 'off');
    assert.is(state.schedule.reason, 'no schedule');
    assert.type(state.clock.synchronized, 'boolean');
    // Retained: a late subscriber sees both at once.
    const late = subscribe(broker.port, [`${P}/availability`, `${P}/state`]);
    try {
      assert.ok((await late.next(`${P}/availability`)).retained);
      assert.ok((await late.next(`${P}/state`)).retained);
    } finally {
      late.close();
    }
    const s = await linkOf(agent);
    assert.is(s.enabled, true);
    assert.is(s.clientId, `device-agent-${ID}`);
    assert.is(s.connected, true);
    assert.is(s.url, broker.url);
    assert.is(s.lastError, null);
  } finally {
    sub.close();
    await agent.cleanup();
    await broker.cleanup();
  }
});

link('the will: kill -9 leaves offline retained; a clean stop publishes offline itself', async () => {
  const broker = await mosquitto();
  let agent = await agentOn(broker, { keepaliveSeconds: 5 });
  const sub = subscribe(broker.port, [`${P}/availability`]);
  try {
    await sub.next(`${P}/availability`, (m) => m.payload === 'online');
    let seen = sub.messages.length;
    agent.child.kill('SIGKILL');
    await sub.next(`${P}/availability`, (m) => m.payload === 'offline', 20_000, seen);
    await agent.cleanup();
    agent = await agentOn(broker);
    seen = sub.messages.length;
    await sub.next(`${P}/availability`, (m) => m.payload === 'online', 20_000, seen);
    seen = sub.messages.length;
    const exit = await agent.stop('SIGTERM');
    assert.is(exit.code, 0);
    assert.ok(await sub.next(`${P}/availability`, (m) => m.payload === 'offline', 5_000, seen));
  } finally {
    sub.close();
    await agent.cleanup();
    await broker.cleanup();
  }
});

link('serves while the broker is down, connects when it starts, reconnects after a restart', async () => {
  const broker = await mosquitto({ started: false });
  const agent = await agentOn(broker);
  try {
    const s = await linkOf(agent); // the HTTP service did not wait for the broker
    assert.is(s.connected, false);
    await until('a connection error', async () => ((await linkOf(agent)).lastError as { text?: string } | null)?.text);
    await broker.start();
    await until('connected', async () => (await linkOf(agent)).connected === true, 30_000);
    await broker.stop();
    await until('disconnected', async () => (await linkOf(agent)).connected === false);
    await broker.start();
    await until('connected again', async () => (await linkOf(agent)).connected === true, 30_000);
    const metrics = await (await fetch(`${agent.url}/metrics`, { headers: bearer(await agent.login()) })).text();
    assert.match(metrics, /^device_agent_mqtt_connected 1$/m);
    assert.match(metrics, /^device_agent_mqtt_connects_total 2$/m);
  } finally {
    await agent.cleanup();
    await broker.cleanup();
  }
});

link('commands: status with a Response Topic and Correlation Data; retained, unknown and misdirected commands', async () => {
  const broker = await mosquitto();
  const agent = await agentOn(broker);
  const sub = subscribe(broker.port, [`${P}/#`, 'replies/#']);
  try {
    await sub.next(`${P}/availability`, (m) => m.payload === 'online');
    const reply = await request(broker.port, `${P}/command/status`, '', 'replies/a');
    assert.ok(reply, 'a reply');
    const r = JSON.parse(reply!);
    assert.is(r.status, 200);
    assert.is(r.body.deviceId, ID);

    const unknown = JSON.parse((await request(broker.port, `${P}/command/reboot`, '{}', 'replies/b'))!);
    assert.equal(unknown, { status: 404, body: { error: 'unknown command: reboot' } });

    // 3.1.1-style envelope on MQTT 5 without a Response Topic: replyTo and id.
    await pub(broker.port, `${P}/command/status`, JSON.stringify({ id: 7, replyTo: 'replies/c', body: {} }));
    const c = JSON.parse((await sub.next('replies/c')).payload);
    assert.is(c.id, 7);
    assert.is(c.status, 200);

    // No reply topic: P/reply/<action>.
    await pub(broker.port, `${P}/command/status`, '{}');
    assert.is(JSON.parse((await sub.next(`${P}/reply/status`)).payload).status, 200);

    // Retained: not run, 400 with the exact text.
    await pub(broker.port, `${P}/command/status`, JSON.stringify({ replyTo: 'replies/d', body: {} }), ['-r']);
    assert.equal(JSON.parse((await sub.next('replies/d')).payload), { status: 400, body: { error: 'retained commands are not run' } });
    await pub(broker.port, `${P}/command/status`, '', ['-r']); // an empty retained message clears the retained command: no answer

    // Not JSON, outside the scopes: the route's 403 first, as over HTTP (not the 400 of the body).
    const notJson = JSON.parse((await request(broker.port, `${P}/command/recording/start`, '{not json', 'replies/g'))!);
    assert.equal(notJson, { status: 403, body: { error: 'insufficient scope: audio is required' } });
    // P/command itself (under P/command/#): a command without an action.
    await pub(broker.port, `${P}/command`, '{}');
    assert.equal(JSON.parse((await sub.next(`${P}/reply/`)).payload), { status: 404, body: { error: 'unknown command: ' } });

    // A reply aimed at the device's own state or at discovery: not run, no reply.
    const before = sub.messages.length;
    await pub(broker.port, `${P}/command/status`, JSON.stringify({ replyTo: `${P}/state`, body: {} }));
    await pub(broker.port, `${P}/command/status`, JSON.stringify({ replyTo: 'homeassistant/x', body: {} }));
    await pub(broker.port, `${P}/command/status`, JSON.stringify({ replyTo: 'replies/e', body: {} }));
    await sub.next('replies/e', () => true, 20_000, before); // the one after them was answered, so they were handled
    const misdirected = sub.messages
      .slice(before)
      .filter((m) => m.topic === 'homeassistant/x' || (m.topic === `${P}/state` && m.payload.includes('"body"')));
    assert.equal(misdirected, []);
    const retainedAnswers = sub.messages.filter((m) => m.topic === `${P}/reply/status` && m.payload.includes('retained'));
    assert.equal(retainedAnswers, [], 'the empty retained message (a clear) was not answered');

    // Outside the scopes: 403, audited denied.
    const denied = JSON.parse((await request(broker.port, `${P}/command/recording/status`, '{}', 'replies/f'))!);
    assert.equal(denied, { status: 403, body: { error: 'insufficient scope: audio is required' } });
    await until('the denials in the audit trail', () => agent.output().includes('"credential":"mqtt"') && agent.output());
    const metrics = await (await fetch(`${agent.url}/metrics`, { headers: bearer(await agent.login()) })).text();
    assert.match(metrics, /^device_agent_mqtt_commands_total\{action="unknown",status="404"\} 2$/m);
    assert.match(metrics, /^device_agent_mqtt_commands_total\{action="status",status="403"\} 2$/m);
  } finally {
    sub.close();
    await agent.cleanup();
    await broker.cleanup();
  }
});

link('Home Assistant discovery: retained, every value_template reads a field of state; resent on homeassistant/status online', async () => {
  const broker = await mosquitto();
  const agent = await agentOn(broker, { commandScopes: ['status', 'audio'] });
  const sub = subscribe(broker.port, [`${P}/state`, `homeassistant/device/${ID}/config`]);
  try {
    const config = JSON.parse((await sub.next(`homeassistant/device/${ID}/config`)).payload);
    const state = JSON.parse((await sub.next(`${P}/state`)).payload);
    assert.equal(config.dev.identifiers, [`device-agent-${ID}`]);
    assert.is(config.dev.model, 'device-agent');
    assert.is(config.o.name, 'device-agent');
    assert.is(config.avty_t, `${P}/availability`);
    assert.is(config.stat_t, `${P}/state`);
    const keys = Object.keys(config.cmps);
    for (const k of ['cpu_load', 'memory_used', 'disk_free', 'uptime', 'recording_state', 'recording', 'schedule_recording', 'record']) {
      assert.ok(keys.includes(k), k);
      assert.is(config.cmps[k].unique_id, `${ID}_${k}`);
    }
    assert.not.ok(keys.includes('outbox_pending'));
    assert.is(config.cmps.record.cmd_t, `${P}/command/recording/start`);
    for (const [k, c] of Object.entries(config.cmps) as Array<[string, { value_template?: string }]>) {
      if (!c.value_template) continue;
      for (const [, path] of c.value_template.matchAll(/value_json\.([A-Za-z.]+)/g)) {
        let v: unknown = state;
        for (const part of path!.split('.')) v = (v as Record<string, unknown>)?.[part];
        assert.ok(v !== undefined, `${k}: ${path} in state`);
      }
    }
    const seen = sub.messages.length;
    await pub(broker.port, 'homeassistant/status', 'online');
    assert.ok(await sub.next(`homeassistant/device/${ID}/config`, () => true, 5_000, seen));
  } finally {
    sub.close();
    await agent.cleanup();
    await broker.cleanup();
  }
});

link("recording/start: the HTTP route's 400 for a bad body, and a repeated correlation id runs once", async () => {
  const broker = await mosquitto();
  const agent = await agentOn(broker, { commandScopes: ['status', 'audio'] });
  const sub = subscribe(broker.port, [`${P}/state`, `${P}/event/#`]);
  try {
    await until('connected', async () => (await linkOf(agent)).connected === true);
    const bad = { duration: 'long', fileExtension: 'wav' };
    const http = await fetch(`${agent.url}/api/v1/audiofiles/audiorecordstart`, {
      method: 'POST',
      headers: { ...bearer(await agent.login()), 'Content-Type': 'application/json' },
      body: JSON.stringify(bad),
    });
    const over = JSON.parse((await request(broker.port, `${P}/command/recording/start`, JSON.stringify(bad), 'replies/bad', 'c-bad'))!);
    assert.equal(over, { status: http.status, body: await http.json() });
    assert.is(over.status, 400);
    const body = JSON.stringify({ duration: 3, fileExtension: 'wav' });
    const first = await request(broker.port, `${P}/command/recording/start`, body, 'replies/rec', 'c-rec');
    const again = await request(broker.port, `${P}/command/recording/start`, body, 'replies/rec', 'c-rec'); // same correlation data
    assert.is(JSON.parse(first!).status, 202, first);
    assert.is(again, first); // not run again (a second start would be 409): its first reply
    // The change reaches event/recording and state (retained) at once, not at the next interval (30 s).
    assert.ok(await sub.next(`${P}/event/recording`, (m) => JSON.parse(m.payload).state === 'recording' && !m.retained));
    // (The null device records faster than real time: the state may already say finished.)
    assert.ok(await sub.next(`${P}/state`, (m) => JSON.parse(m.payload).recording.state !== 'idle'));
    sub.close();
    // A retry after the link dropped (the client's very reason to retry) is not run again either.
    await broker.stop();
    await until('disconnected', async () => (await linkOf(agent)).connected === false);
    await broker.start();
    await until('connected again', async () => (await linkOf(agent)).connected === true, 30_000);
    assert.is(await request(broker.port, `${P}/command/recording/start`, body, 'replies/rec', 'c-rec'), first);
  } finally {
    sub.close();
    await agent.cleanup();
    await broker.cleanup();
  }
});

link('MQTT 3.1.1: a command over 256 KiB is answered 413 and the link stays up; retained, it is refused at each connect', async () => {
  const broker = await mosquitto();
  const agent = await agentOn(broker, { protocolVersion: 4 });
  const sub = subscribe(broker.port, [`${P}/#`], 'mqttv311');
  const dir = makeDir();
  const v311 = ['-V', 'mqttv311'];
  const replies = () => sub.messages.filter((m) => m.topic === `${P}/reply/status`).map((m) => JSON.parse(m.payload));
  try {
    await sub.next(`${P}/availability`, (m) => m.payload === 'online', 30_000);
    // 3.1.1 has no Maximum Packet Size for the agent to announce: the broker sends it anyway.
    const big = join(dir, 'big.json');
    writeFileSync(big, JSON.stringify({ body: { pad: 'x'.repeat(300_000) } }));
    const tooLarge = { status: 413, body: { error: 'request body too large, max 262144 bytes' } };
    await pub(broker.port, `${P}/command/status`, '', [...v311, '-f', big]);
    await pub(broker.port, `${P}/command/status`, '', [...v311, '-r', '-f', big]); // live, 3.1.1 clears the retain flag
    await until('two answers', () => replies().length >= 2);
    assert.equal(replies(), [tooLarge, tooLarge]);
    // A reconnect (SIGHUP with a changed key): the broker sends the retained one at the subscribe.
    const config = JSON.parse(readFileSync(agent.configFile, 'utf8'));
    config.mqtt.keepaliveSeconds = 45;
    writeFileSync(agent.configFile, JSON.stringify(config));
    agent.child.kill('SIGHUP');
    await until('refused as retained', () => replies().length >= 3);
    assert.equal(replies()[2], { status: 400, body: { error: 'retained commands are not run' } });
    await pub(broker.port, `${P}/command/status`, JSON.stringify({ id: 'after', body: {} }), v311);
    await until('answered after it', () => replies().find((r) => r.id === 'after'));
    assert.is(replies().find((r) => r.id === 'after').status, 200);
    const s = await linkOf(agent);
    assert.is(s.connected, true);
    assert.is(s.lastError, null);
    const metrics = await (await fetch(`${agent.url}/metrics`, { headers: bearer(await agent.login()) })).text();
    assert.match(metrics, /^device_agent_mqtt_connects_total 2$/m, 'connected twice: at start and at the SIGHUP');
    assert.match(metrics, /^device_agent_mqtt_commands_total\{action="status",status="413"\} 2$/m);
  } finally {
    sub.close();
    rmSync(dir, { recursive: true, force: true });
    await agent.cleanup();
    await broker.cleanup();
  }
});

link("schedule/set: the HTTP PUT's 400 for a bad document; a good one is then what schedule/get answers", async () => {
  const broker = await mosquitto();
  const agent = await agentOn(broker, { commandScopes: ['audio'] });
  try {
    await until('connected', async () => (await linkOf(agent)).connected === true);
    const bad = {
      windows: [
        { start: '10:00', end: '11:00' },
        { start: 'noon', end: '13:00' },
      ],
    };
    const http = await fetch(`${agent.url}/api/v1/schedule`, {
      method: 'PUT',
      headers: { ...bearer(await agent.login()), 'Content-Type': 'application/json' },
      body: JSON.stringify(bad),
    });
    const over = JSON.parse((await request(broker.port, `${P}/command/schedule/set`, JSON.stringify(bad), 'replies/s1', 's-bad'))!);
    assert.equal(over, { status: http.status, body: await http.json() });
    assert.equal(over, { status: 400, body: { error: 'windows[1].start: must be HH:MM or a sun event with an offset' } });
    const good = { timeZone: 'UTC', windows: [{ start: '01:30', end: '03:00' }] };
    const set = JSON.parse((await request(broker.port, `${P}/command/schedule/set`, JSON.stringify(good), 'replies/s2', 's-good'))!);
    assert.is(set.status, 200, JSON.stringify(set));
    const got = JSON.parse((await request(broker.port, `${P}/command/schedule/get`, '', 'replies/s3', 's-get'))!);
    assert.is(got.status, 200);
    assert.equal(got.body.schedule, set.body.schedule);
    assert.is(got.body.schedule.timeZone, 'UTC');
    assert.equal(
      got.body.schedule.windows.map((w: { start: string; end: string }) => [w.start, w.end]),
      [['01:30', '03:00']],
    );
  } finally {
    await agent.cleanup();
    await broker.cleanup();
  }
});

link(
  'audit: a changing command is audited as its route; read-only ones add no line; a reply topic on P/ or discovery is denied, not run',
  async () => {
    const broker = await mosquitto();
    const agent = await agentOn(broker, { commandScopes: ['status', 'audio'] });
    const sub = subscribe(broker.port, [`${P}/#`, 'homeassistant/#', 'replies/#']);
    const mqttAudit = () => auditEvents(agent.output()).filter((e) => e.credential === 'mqtt');
    try {
      await sub.next(`${P}/availability`, (m) => m.payload === 'online');
      for (const [action, id] of [
        ['status', 'r-1'],
        ['recording/status', 'r-2'],
        ['schedule/get', 'r-3'],
      ] as const) {
        const r = JSON.parse((await request(broker.port, `${P}/command/${action}`, '', `replies/${id}`, id))!);
        assert.is(r.status, 200, action);
      }
      const doc = { timeZone: 'UTC', windows: [{ start: '01:30', end: '03:00' }] };
      const set = JSON.parse((await request(broker.port, `${P}/command/schedule/set`, JSON.stringify(doc), 'replies/w-1', 'w-1'))!);
      assert.is(set.status, 200, JSON.stringify(set));
      // The audit trail is one stream: once the set's line is there, any line of the reads before it is too.
      await until('schedule.set audited', () => mqttAudit().some((e) => e.event === 'schedule.set'));
      assert.equal(
        mqttAudit().map((e) => [e.event, e.outcome, e.user, e.client]),
        [['schedule.set', 'ok', 'mqtt', '127.0.0.1']],
      );

      // A changing command whose reply would go to the device's own state or to discovery: denied, not run, no reply.
      const before = sub.messages.length;
      const targets = [`${P}/state`, `${P}/availability`, 'homeassistant/device/x/config'];
      for (const replyTo of targets)
        await pub(broker.port, `${P}/command/schedule/clear`, JSON.stringify({ id: replyTo, replyTo, body: {} }));
      await until('three denials', () => mqttAudit().filter((e) => e.event === 'denied').length >= 3);
      const denied = mqttAudit().filter((e) => e.event === 'denied');
      assert.equal(
        denied.map((e) => [e.outcome, e.user, e.client, e.path]),
        Array(3).fill(['denied', 'mqtt', '127.0.0.1', `${P}/command/schedule/clear`]),
      );
      assert.not.ok(mqttAudit().some((e) => e.event === 'schedule.clear'));
      const got = JSON.parse((await request(broker.port, `${P}/command/schedule/get`, '', 'replies/r-4', 'r-4'))!);
      assert.equal(got.body.schedule, set.body.schedule); // the clears did not run
      assert.equal(
        sub.messages.slice(before).filter((m) => targets.includes(m.topic) && m.payload.includes('"body"')),
        [],
      );
      const metrics = await (await fetch(`${agent.url}/metrics`, { headers: bearer(await agent.login()) })).text();
      assert.match(metrics, /^device_agent_mqtt_commands_total\{action="schedule\/clear",status="403"\} 3$/m);
    } finally {
      sub.close();
      await agent.cleanup();
      await broker.cleanup();
    }
  },
);

link("event/<name>: the stream's recording events, never its status", async () => {
  const broker = await mosquitto();
  const agent = await agentOn(broker, { commandScopes: ['status', 'audio'] });
  const sub = subscribe(broker.port, [`${P}/event/#`]);
  const token = await agent.login();
  const stream = await openEvents(agent.port, bearer(token));
  try {
    await until('connected', async () => (await linkOf(agent)).connected === true);
    assert.is((await startRecording(agent, token, { duration: 2, fileExtension: 'wav' })).status, 202);
    // The stream sees status at once, then every 2 s. (Its `level`, also kept from MQTT, needs a device
    // that records in real time: the null device finishes at once and reports none.)
    await stream.waitFor((e) => e.event === 'status', 2, 20_000);
    await stream.waitFor((e) => e.event === 'recording' && JSON.parse(e.data).state === 'finished', 1, 20_000);
    await sub.next(`${P}/event/recording`, (m) => JSON.parse(m.payload).state === 'finished');
    const topics = new Set(sub.messages.map((m) => m.topic));
    assert.ok(topics.has(`${P}/event/recording`));
    assert.not.ok(topics.has(`${P}/event/status`));
  } finally {
    stream.close();
    sub.close();
    await agent.cleanup();
    await broker.cleanup();
  }
});

link('state is published again on a schedule state change, not only every stateIntervalSeconds', async () => {
  const broker = await mosquitto();
  // An hour between regular publications: any state seen after the change came from the change.
  const agent = await agentOn(broker, { stateIntervalSeconds: 3600 });
  const sub = subscribe(broker.port, [`${P}/state`]);
  try {
    const first = JSON.parse((await sub.next(`${P}/state`)).payload);
    assert.is(first.schedule.state, 'off');
    const seen = sub.messages.length;
    const headers = { ...bearer(await agent.login()), 'Content-Type': 'application/json' };
    const doc = { timeZone: 'UTC', windows: [{ start: '01:30', end: '03:00' }] };
    const put = await fetch(`${agent.url}/api/v1/schedule`, { method: 'PUT', headers, body: JSON.stringify(doc) });
    assert.is(put.status, 200);
    const changed = JSON.parse((await sub.next(`${P}/state`, (m) => JSON.parse(m.payload).schedule.state !== 'off', 20_000, seen)).payload);
    const now = (await (await fetch(`${agent.url}/api/v1/schedule`, { headers })).json()) as { state: { state: string } };
    assert.is(changed.schedule.state, now.state.state);
  } finally {
    sub.close();
    await agent.cleanup();
    await broker.cleanup();
  }
});

link('SIGHUP with a changed topicPrefix: offline on the old topics, online on the new', async () => {
  const broker = await mosquitto();
  const agent = await agentOn(broker);
  const sub = subscribe(broker.port, ['+/dev-mqtt-1/availability']);
  try {
    await sub.next(`${P}/availability`, (m) => m.payload === 'online');
    const seen = sub.messages.length;
    const config = JSON.parse(readFileSync(agent.configFile, 'utf8'));
    config.mqtt.topicPrefix = 'fleet2';
    writeFileSync(agent.configFile, JSON.stringify(config));
    agent.child.kill('SIGHUP');
    await sub.next(`${P}/availability`, (m) => m.payload === 'offline', 20_000, seen);
    await sub.next(`fleet2/${ID}/availability`, (m) => m.payload === 'online', 20_000, seen);
  } finally {
    sub.close();
    await agent.cleanup();
    await broker.cleanup();
  }
});

link('mqtts with a private CA and a client certificate; a password file; the password never logged', async () => {
  const dir = makeDir('da-mqtt-tls-');
  const ca = { certFile: join(dir, 'ca.pem'), keyFile: join(dir, 'ca.key') };
  makeCa(ca.certFile, ca.keyFile, '/CN=Test MQTT CA');
  makeServerCert(join(dir, 'server.pem'), join(dir, 'server.key'), ca);
  makeClientCert(join(dir, 'client.pem'), join(dir, 'client.key'), ca, '/CN=dev-mqtt-1');
  passwordFile(join(dir, 'passwd'), 'dev1', 'pw-7f3a9');
  writeFileSync(join(dir, 'dev1.password'), 'pw-7f3a9\n');
  const broker = await mosquitto({
    extra: [
      `cafile ${ca.certFile}`,
      `certfile ${join(dir, 'server.pem')}`,
      `keyfile ${join(dir, 'server.key')}`,
      'require_certificate true',
      `password_file ${join(dir, 'passwd')}`,
    ],
  });
  const url = broker.url.replace('mqtt:', 'mqtts:');
  const tls = { caFile: ca.certFile, certFile: join(dir, 'client.pem'), keyFile: join(dir, 'client.key'), username: 'dev1' };
  const agent = await startAgent({
    config: { deviceId: ID, audio: { device: 'null' }, mqtt: { url, ...tls, passwordFile: join(dir, 'dev1.password') } },
  });
  try {
    await until('connected over TLS', async () => (await linkOf(agent)).connected === true);
    const config = JSON.parse(readFileSync(agent.configFile, 'utf8'));
    writeFileSync(join(dir, 'dev1.password'), 'wrong-password');
    agent.child.kill('SIGHUP'); // the file is read again: a changed password reconnects with it
    await until('refused', async () =>
      ((await linkOf(agent)).lastError as { text?: string } | null)?.text?.includes('the broker refused the connection: not authorized'),
    );
    assert.not.ok(agent.output().includes('pw-7f3a9'));
    assert.not.ok(agent.output().includes('wrong-password'));
    assert.is(config.mqtt.passwordFile, join(dir, 'dev1.password'));
  } finally {
    await agent.cleanup();
    await broker.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

link('reconnect waits double from 1 s (one loop: no attempt sooner than its wait)', async () => {
  const { createServer } = await import('node:net');
  const attempts: number[] = [];
  // A "broker" that takes each connection and closes it at once: every attempt is seen.
  const server = createServer((s) => {
    attempts.push(performance.now());
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const agent = await startAgent({ config: { deviceId: ID, audio: { device: 'null' }, mqtt: { url: `mqtt://127.0.0.1:${port}` } } });
  try {
    await until('four attempts', () => attempts.length >= 4, 30_000);
    const gaps = attempts.slice(1, 4).map((t, i) => t - attempts[i]!);
    // ±20 % jitter: at least 0.8, 1.6 and 3.2 s (a busy machine only makes them longer).
    for (const [i, gap] of gaps.entries()) assert.ok(gap >= 800 * 2 ** i - 50, `wait ${i + 1}: ${gap} ms`);
  } finally {
    await agent.cleanup();
    server.close();
  }
});

const v311 = suite('mqtt link (nats-server, MQTT 3.1.1)');

v311('connects with protocolVersion 4, announces online, answers an envelope command on replyTo', async () => {
  const broker = await natsMqtt();
  const agent = await agentOn(broker, { protocolVersion: 4, homeAssistant: null });
  const sub = subscribe(broker.port, [`${P}/#`, 'replies/#'], 'mqttv311');
  try {
    await sub.next(`${P}/availability`, (m) => m.payload === 'online', 30_000);
    await pub(broker.port, `${P}/command/status`, JSON.stringify({ id: 'x1', replyTo: 'replies/n', body: {} }), ['-V', 'mqttv311']);
    const reply = JSON.parse((await sub.next('replies/n')).payload);
    assert.is(reply.id, 'x1');
    assert.is(reply.status, 200);
    assert.is(reply.body.deviceId, ID);
  } finally {
    sub.close();
    await agent.cleanup();
    await broker.cleanup();
  }
});

const cfg = suite('mqtt config');

cfg('credentials in the URL: exit 78 naming mqtt.url', async () => {
  const agent = await startAgent({});
  try {
    writeFileSync(agent.configFile, JSON.stringify({ mqtt: { url: 'mqtt://user:secret@127.0.0.1:1883' } }));
    const r = await runCli(['config', 'check', '--config', agent.configFile]);
    assert.is(r.code, 78);
    assert.match(r.stderr, /mqtt\.url: credentials in the URL are refused/);
    assert.not.match(r.stderr, /secret/);
  } finally {
    await agent.cleanup();
  }
});

cfg('with mqtt off, GET /api/v1/mqtt is {"enabled": false} and no mqtt series', async () => {
  const agent = await startAgent({});
  try {
    assert.equal(await linkOf(agent), { enabled: false });
    const metrics = await (await fetch(`${agent.url}/metrics`, { headers: bearer(await agent.login()) })).text();
    assert.not.match(metrics, /device_agent_mqtt/, 'no series, no HELP or TYPE line either');
  } finally {
    await agent.cleanup();
  }
});

link.run();
v311.run();
cfg.run();
