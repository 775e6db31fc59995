// The baseline of bench/mqtt.mjs: a minimal MQTT.js responder. It answers every message on
// `topic` with the same fixed JSON (read from `replyFile`) on the request's MQTT 5 Response
// Topic with its Correlation Data, QoS 1, as the agent answers a `status` command; with
// TCP_NODELAY, as the agent's socket.
//   node bench/mqtt-responder.mjs URL TOPIC REPLY_FILE     prints "ready" once subscribed
import { readFileSync } from 'node:fs';
import mqtt from 'mqtt';

const [url, topic, replyFile] = process.argv.slice(2);
const reply = readFileSync(replyFile);
const client = mqtt.connect(url, { protocolVersion: 5, clean: true, reconnectPeriod: 0 });
client.on('message', (_topic, _payload, packet) => {
  const { responseTopic, correlationData } = packet.properties ?? {};
  if (responseTopic) client.publish(responseTopic, reply, { qos: 1, properties: { correlationData } });
});
client.on('error', (err) => {
  console.error(`mqtt-responder: ${err.message}`);
  process.exit(1);
});
client.on('connect', () => {
  // As the agent's client does (src/mqtt/client.ts): MQTT.js leaves Nagle's algorithm on, and
  // a reply could wait for the generator's delayed ACK.
  client.stream.setNoDelay(true);
  client.subscribe(topic, { qos: 1 }, (err) => {
    if (err) throw err;
    console.log('ready');
  });
});
process.on('SIGTERM', () => client.end(false, () => process.exit(0)));
