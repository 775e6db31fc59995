// device-agent events: the device's server-sent events (GET /api/v1/events), one message
// per event (msg.topic the event's name, msg.payload its data). The stream is opened on
// deploy and opened again after a failure or an end, with a growing delay (1 s, doubling
// to 60 s; back to 1 s once a stream has delivered an event).
'use strict';
const { describe, server } = require('./lib/common.js');

const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 60_000;
const KINDS = ['status', 'recording', 'level'];

module.exports = (RED) => {
  function DeviceAgentEventsNode(config) {
    RED.nodes.createNode(this, config);
    const device = server(RED, this, config);
    if (!device) return;
    // Which events go out; an event name this node does not know (a newer agent's) goes out when "other" is ticked.
    const wanted = new Set(KINDS.filter((k) => config[k] !== false));
    const others = config.other === true;
    let closed = false;
    let abort = null;
    let timer = null;
    let delay = FIRST_DELAY_MS;

    const retry = (why) => {
      if (closed) return;
      const seconds = Math.round(delay / 1000);
      this.status({ fill: why.error ? 'red' : 'yellow', shape: 'ring', text: `${why.short}; again in ${seconds} s` });
      timer = setTimeout(() => {
        timer = null;
        connect();
      }, delay);
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    };

    const connect = async () => {
      abort = new AbortController();
      this.status({ fill: 'yellow', shape: 'dot', text: 'connecting' });
      try {
        const agent = await device.agent();
        const events = agent.events({ signal: abort.signal });
        let first = true;
        for await (const e of events) {
          if (first) {
            first = false;
            delay = FIRST_DELAY_MS;
            this.status({ fill: 'green', shape: 'dot', text: 'connected' });
          }
          if (wanted.has(e.event) || (others && !KINDS.includes(e.event))) this.send({ topic: e.event, payload: e.data });
        }
        retry({ short: 'stream ended', error: false });
      } catch (err) {
        if (closed) return;
        const d = describe(err);
        this.error(d.text);
        retry({ short: d.short, error: true });
      }
    };
    connect();

    this.on('close', (done) => {
      closed = true;
      if (timer) clearTimeout(timer);
      if (abort) abort.abort();
      this.status({});
      done();
    });
  }

  RED.nodes.registerType('device-agent events', DeviceAgentEventsNode);
};
