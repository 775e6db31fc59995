// The MQTT link's figures (docs/mqtt.md): `status` commands answered through a local Mosquitto
// by the agent (its own client, src/mqtt/) beside a minimal MQTT.js responder that answers the
// agent's own reply, fixed, on the same broker (bench/mqtt-responder.mjs). One MQTT.js load
// generator in this process drives both, in alternating order round by round: MQTT 5 requests
// with a Response Topic and Correlation Data, QoS 1 both ways. Then the link's memory: idle RSS
// connected over the same agent with no `mqtt`, and RSS after 1,000 commands over before: as
// measured, and less the executable's code pages the burst faulted in (V8's optimizing
// compiler, paged in once per process whatever gets hot: docs/mqtt.md).
// Full run: 5 s of load and 500 round trips per contender and round; --smoke: 1 s and 50,
// and RSS 1 s (not 5 s) after the commands.
//   node bench/mqtt.mjs [--rounds N] [--smoke]     prints the rows as a Markdown table
// bench/run.mjs adds mqttRows()'s rows to BENCHMARKS.md.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import mqtt from 'mqtt';
import { AGENT_LISTENING, baseConfig, codeRssKb, portIn, procStats } from './procs.mjs';
import { lessCodeRows, pairRatio, table } from './report.mjs';
import { BIN, flag, inTempDir, numberArg, ranAlone } from './alone.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Requests in flight during the load (under Mosquitto's default of 20 QoS 1 messages in flight per client). */
const WINDOW = 16;
const PREFIX = 'bench';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Polls `probe` every 50 ms until it holds; throws after `ms`. */
async function until(what, probe, ms = 20_000) {
  for (const end = Date.now() + ms; !(await probe()); await sleep(50))
    if (Date.now() > end) throw new Error(`bench/mqtt.mjs: ${what} never happened`);
}

/** Mosquitto on a free loopback port with its own temp config (as test/helpers/mqtt.ts starts it). */
async function startMosquitto(dir) {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      'persistence false',
      // Mosquitto leaves Nagle's algorithm on by default: its sends would wait for the clients' delayed ACKs.
      'set_tcp_nodelay true',
      // Run as root, Mosquitto would switch to user mosquitto, who cannot read the bench's 0700 directory.
      ...(process.getuid?.() === 0 ? ['user root'] : []),
      'log_dest none',
      '',
    ].join('\n'),
  );
  const child = spawn('mosquitto', ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = ''; // kept for a failed start (as root it always warns that it runs as root)
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise((r) => child.once('exit', r));
  await until(`Mosquitto listening on ${port}`, () => {
    if (child.exitCode !== null) throw new Error(`bench/mqtt.mjs: mosquitto exited ${child.exitCode}: ${stderr}`);
    return new Promise((resolve) => {
      const s = tcpConnect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
  });
  return {
    url: `mqtt://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The agent over `dir` as device `deviceId`, with `mqtt` (null: the link off). It has no users
 * (it starts with a warning): no password is hashed, nobody logs in, and the commands run with
 * the rights of `mqtt.commandScopes`.
 */
async function startAgent(bin, dir, deviceId, mqttConfig) {
  mkdirSync(join(dir, 'files'), { recursive: true });
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify(baseConfig({ deviceId, ...(mqttConfig ? { mqtt: mqttConfig } : {}) })));
  const logFile = join(dir, `agent-${deviceId}.log`);
  const fd = openSync(logFile, 'w');
  const child = spawn(bin, ['serve', '--config', config], { stdio: ['ignore', fd, 'inherit'] });
  closeSync(fd);
  await portIn(logFile, AGENT_LISTENING, child);
  return {
    child,
    rssMb: () => procStats(child.pid).rssKb / 1024,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** The baseline responder (its own Node process, as the agent is) answering on `topic` with `replyFile`'s bytes. */
async function startResponder(url, topic, replyFile) {
  const child = spawn(process.execPath, [join(root, 'bench/mqtt-responder.mjs'), url, topic, replyFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  await until('the MQTT.js responder ready', () => {
    if (child.exitCode !== null) throw new Error(`bench/mqtt.mjs: the responder exited ${child.exitCode}`);
    return out.includes('ready');
  });
  return {
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/**
 * The load generator: one MQTT.js client sending MQTT 5 requests (empty payload, Response
 * Topic, Correlation Data, QoS 1) and matching the replies by their correlation data.
 */
async function generator(url) {
  const replies = `bench-generator/${process.pid}/replies`;
  const client = await mqtt.connectAsync(url, { protocolVersion: 5, clean: true, reconnectPeriod: 0 });
  // MQTT.js leaves Nagle's algorithm on: with delayed ACKs a request could wait 40 ms to be sent.
  client.stream.setNoDelay(true);
  const waiting = new Map();
  let next = 0;
  client.on('message', (_topic, payload, packet) => {
    const id = packet.properties?.correlationData?.toString();
    const done = waiting.get(id);
    if (done) {
      waiting.delete(id);
      done(payload);
    }
  });
  await client.subscribeAsync(replies, { qos: 1 });
  /** One request on `topic`: its reply's payload, or undefined after `ms`. */
  const request = (topic, ms = 10_000) =>
    new Promise((resolve) => {
      const id = String(next++);
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve(undefined);
      }, ms);
      waiting.set(id, (payload) => {
        clearTimeout(timer);
        resolve(payload);
      });
      client.publish(topic, '', { qos: 1, properties: { responseTopic: replies, correlationData: Buffer.from(id) } });
    });
  return {
    request,
    /** Resolves once `base`/availability says `online` (retained, after each connect of the link). */
    async online(base) {
      let seen = false;
      const on = (topic, payload) => {
        if (topic === `${base}/availability` && payload.toString() === 'online') seen = true;
      };
      client.on('message', on);
      await client.subscribeAsync(`${base}/availability`, { qos: 1 });
      await until(`${base} online`, () => seen);
      client.off('message', on);
      await client.unsubscribeAsync(`${base}/availability`);
    },
    /** Sends requests until one is answered (the agent subscribes in the background after its start). */
    async ready(topic) {
      await until(`an answer on ${topic}`, async () => (await request(topic, 250)) !== undefined);
      return request(topic);
    },
    /** `n` requests, `WINDOW` in flight. */
    async burst(topic, n) {
      let left = n;
      await Promise.all(
        Array.from({ length: WINDOW }, async () => {
          while (left-- > 0) if ((await request(topic)) === undefined) throw new Error(`bench/mqtt.mjs: no answer on ${topic}`);
        }),
      );
    },
    /** Answers per second with `WINDOW` in flight for `seconds` (after a warm-up of a fifth of that). */
    async rate(topic, seconds) {
      let answered = 0;
      let counting = false;
      let running = true;
      const loops = Array.from({ length: WINDOW }, async () => {
        while (running) if ((await request(topic)) !== undefined && counting && running) answered++;
      });
      await sleep(seconds * 200);
      counting = true;
      const t = performance.now();
      await sleep(seconds * 1000);
      running = false;
      const secs = (performance.now() - t) / 1000;
      await Promise.all(loops);
      return answered / secs;
    },
    /** The p99 (ms) of `n` round trips one after another. */
    async p99(topic, n) {
      const ms = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        if ((await request(topic)) === undefined) throw new Error(`bench/mqtt.mjs: no answer on ${topic}`);
        ms.push(performance.now() - t);
      }
      ms.sort((a, b) => a - b);
      return ms[Math.ceil(n * 0.99) - 1];
    },
    close: () => client.endAsync(),
  };
}

export async function mqttRows({ bin, dir, rounds = 3, smoke = false, log = () => {} }) {
  mkdirSync(dir, { recursive: true });
  const [seconds, trips, settleMs, afterMs] = smoke ? [1, 50, 500, 1000] : [5, 500, 3000, 5000];
  const commands = 1000;
  const broker = await startMosquitto(join(dir, 'mosquitto'));
  const stops = [broker.stop];
  try {
    // Idle RSS with the link off, then the same agent with it on (once connected).
    const off = await startAgent(bin, join(dir, 'off'), 'bench-off', null);
    await sleep(settleMs);
    const offMb = off.rssMb();
    await off.stop();
    const gen = await generator(broker.url);
    stops.unshift(gen.close);
    const agentTopic = `${PREFIX}/bench-agent/command/status`;
    const agent = await startAgent(bin, join(dir, 'on'), 'bench-agent', {
      url: broker.url,
      topicPrefix: PREFIX,
      commandScopes: ['status'],
    });
    stops.unshift(agent.stop);
    await gen.online(`${PREFIX}/bench-agent`);
    await sleep(settleMs);
    const onMb = agent.rssMb();
    const idleMb = onMb - offMb;
    log(`mqtt: idle RSS with the link connected ${onMb.toFixed(1)} MB, off ${offMb.toFixed(1)} MB`);
    const reply = await gen.ready(agentTopic);
    const before = procStats(agent.child.pid);
    const codeBefore = codeRssKb(agent.child.pid, bin);
    await gen.burst(agentTopic, commands);
    await sleep(afterMs);
    const after = procStats(agent.child.pid);
    const codeKb = codeRssKb(agent.child.pid, bin) - codeBefore;
    const afterMb = (after.rssKb - before.rssKb) / 1024;
    const signed = (kb) => `${kb >= 0 ? '+' : ''}${(kb / 1024).toFixed(1)} MB`;
    log(
      `mqtt: ${commands} commands, ${afterMs / 1000} s later RSS ${signed(after.rssKb - before.rssKb)} ` +
        `(anonymous ${signed(after.anonKb - before.anonKb)}, file-backed ${signed(after.rssKb - after.anonKb - (before.rssKb - before.anonKb))}, ` +
        `of which the executable's code ${signed(codeKb)})`,
    );

    // The responder answers with the agent's own reply, so both send the same bytes.
    const replyFile = join(dir, 'reply.json');
    writeFileSync(replyFile, reply);
    const baseTopic = `${PREFIX}/bench-baseline/command/status`;
    const responder = await startResponder(broker.url, baseTopic, replyFile);
    stops.unshift(responder.stop);
    await gen.ready(baseTopic);
    const rate = { agent: [], base: [] };
    const p99 = { agent: [], base: [] };
    for (let i = 0; i < rounds; i++) {
      const runAgent = async () => {
        rate.agent.push(await gen.rate(agentTopic, seconds));
        p99.agent.push(await gen.p99(agentTopic, trips));
      };
      const runBase = async () => {
        rate.base.push(await gen.rate(baseTopic, seconds));
        p99.base.push(await gen.p99(baseTopic, trips));
      };
      // Alternating order: neither always runs first.
      if (i % 2 === 0) {
        await runAgent();
        await runBase();
      } else {
        await runBase();
        await runAgent();
      }
      log(
        `mqtt round ${i + 1}: agent ${rate.agent.at(-1).toFixed(0)}/s p99 ${p99.agent.at(-1).toFixed(2)} ms, ` +
          `MQTT.js ${rate.base.at(-1).toFixed(0)}/s p99 ${p99.base.at(-1).toFixed(2)} ms`,
      );
    }
    const baselineName = 'MQTT.js responder';
    return [
      {
        figure: `status commands answered per second over MQTT 5 (Mosquitto, ${WINDOW} in flight, QoS 1)`,
        unit: '/s',
        agent: rate.agent,
        baseline: rate.base,
        baselineName,
        target: '≥ 0.8 ×',
        ok: pairRatio(rate.agent, rate.base) >= 0.8,
        digits: 0,
      },
      {
        figure: `status command round trip over MQTT, p99 (${trips} one after another)`,
        unit: 'ms',
        agent: p99.agent,
        baseline: p99.base,
        baselineName,
        target: '≤ 1.5 ×',
        ok: pairRatio(p99.agent, p99.base) <= 1.5,
        digits: 2,
      },
      {
        figure: 'idle RSS with the MQTT link connected, over the link off',
        unit: 'MB',
        agent: [idleMb],
        target: '≤ +6 MB',
        ok: idleMb <= 6,
      },
      ...lessCodeRows({
        figure: `RSS ${afterMs / 1000} s after ${commands.toLocaleString('en')} MQTT status commands, over before`,
        mb: afterMb,
        codeMb: codeKb / 1024,
        pages: "the burst faulted in (V8's optimizing compiler, once per process)",
        limit: 2,
        target: smoke ? 'report (≤ +2 MB 5 s after)' : '≤ +2 MB',
      }),
    ];
  } finally {
    for (const stop of stops) await stop();
  }
}

if (ranAlone(import.meta.url)) {
  const smoke = flag('smoke');
  await inTempDir('da-bench-mqtt-', async (dir) => {
    const rows = await mqttRows({ bin: BIN, dir, rounds: numberArg('rounds', smoke ? 1 : 3), smoke, log: (m) => console.error(m) });
    console.log(table(rows));
  });
}
