// device-agent-config: one device (its URL, how its key is trusted) and the API token used
// with it. The token is a credential: Node-RED keeps it out of the flow file, encrypted in
// flows_cred.json.
'use strict';
const { readFile } = require('node:fs/promises');
const { loadClient } = require('./lib/common.js');

module.exports = (RED) => {
  function DeviceAgentConfigNode(config) {
    RED.nodes.createNode(this, config);
    this.name = config.name;
    this.url = config.url;
    this.pin = config.pin;
    this.caFile = config.caFile;
    let agent = null;

    /** The client of this device, made on first use and shared by every node using it. */
    this.agent = () => {
      if (agent) return agent;
      const made = (async () => {
        const { DeviceAgent } = await loadClient();
        const token = this.credentials?.token;
        if (!token) throw new Error('the device-agent config node has no API token');
        const ca = this.caFile ? await readFile(this.caFile, 'utf8') : undefined;
        return new DeviceAgent({ url: this.url, token, pin: this.pin || undefined, ca });
      })();
      // A failure (no token, an unreadable CA file, a malformed pin) is tried afresh next time.
      made.catch(() => {
        if (agent === made) agent = null;
      });
      agent = made;
      return made;
    };

    this.on('close', async (done) => {
      const made = agent;
      agent = null;
      try {
        if (made) (await made).close();
      } catch {
        // It was never made: nothing to close.
      }
      done();
    });
  }

  RED.nodes.registerType('device-agent-config', DeviceAgentConfigNode, {
    credentials: { token: { type: 'password' } },
  });
};
