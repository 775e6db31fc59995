// device-agent file: list a directory, get a file (into msg.payload as a Buffer, or into a
// local file), put msg.payload as a file, or delete a file or directory on the device.
'use strict';
const { Readable } = require('node:stream');
const { basename } = require('node:path');
const { fail, pick, server } = require('./lib/common.js');

const OPERATIONS = ['list', 'get', 'put', 'delete'];

async function readAll(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

module.exports = (RED) => {
  function DeviceAgentFileNode(config) {
    RED.nodes.createNode(this, config);
    const device = server(RED, this, config);

    this.on('input', async (msg, send, done) => {
      if (!device) return fail(this, new Error('no device-agent config node is selected'), msg, done);
      const operation = config.operation && config.operation !== 'msg' ? config.operation : msg.operation;
      if (!OPERATIONS.includes(operation))
        return fail(this, new Error(`msg.operation must be one of list, get, put, delete, not ${operation}`), msg, done);
      const path = pick(msg, 'path', config.path);
      if (path === undefined && operation !== 'list')
        return fail(this, new Error(`${operation} needs a path on the device (the node's "Path", or msg.path)`), msg, done);
      this.status({ fill: 'blue', shape: 'dot', text: operation });
      try {
        const agent = await device.agent();
        if (operation === 'list') {
          msg.payload = await agent.list(path ?? '');
        } else if (operation === 'get') {
          const saveTo = pick(msg, 'saveTo', config.saveTo);
          if (saveTo) {
            const saved = await agent.downloadToFile(String(path), String(saveTo), { resume: false });
            msg.payload = saved.path;
            msg.filename = saved.path;
          } else {
            const download = await agent.download(String(path));
            msg.payload = await readAll(download.body);
          }
        } else if (operation === 'put') {
          let body = msg.payload;
          if (typeof body === 'string') body = Buffer.from(body, 'utf8');
          if (!Buffer.isBuffer(body)) throw new Error('put sends msg.payload, which must be a Buffer or a string');
          const bytes = body;
          msg.payload = await agent.upload(
            [{ name: basename(String(path)), size: bytes.length, open: () => Readable.from([bytes]) }],
            String(path),
          );
        } else {
          const recursive = config.recursive === true || msg.recursive === true;
          await agent.remove(String(path), { recursive });
          msg.payload = { path: String(path), deleted: true };
        }
        msg.path = path ?? '';
        this.status({});
        send(msg);
        done();
      } catch (err) {
        fail(this, err, msg, done);
      }
    });
  }

  RED.nodes.registerType('device-agent file', DeviceAgentFileNode);
};
