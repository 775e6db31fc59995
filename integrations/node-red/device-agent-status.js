// device-agent status: on each message, the device's status record (GET
// /api/v1/devicestatus/get) in msg.payload.
'use strict';
const { fail, server } = require('./lib/common.js');

module.exports = (RED) => {
  function DeviceAgentStatusNode(config) {
    RED.nodes.createNode(this, config);
    const device = server(RED, this, config);

    this.on('input', async (msg, send, done) => {
      if (!device) return fail(this, new Error('no device-agent config node is selected'), msg, done);
      this.status({ fill: 'blue', shape: 'dot', text: 'requesting' });
      try {
        const agent = await device.agent();
        msg.payload = await agent.status();
        this.status({});
        send(msg);
        done();
      } catch (err) {
        fail(this, err, msg, done);
      }
    });
  }

  RED.nodes.registerType('device-agent status', DeviceAgentStatusNode);
};
