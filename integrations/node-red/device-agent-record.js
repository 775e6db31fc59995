// device-agent record: starts a recording on the device; optionally waits for its end and
// brings the file back, into msg.payload as a Buffer or into a local file.
'use strict';
const { stat } = require('node:fs/promises');
const { basename, join } = require('node:path');
const { fail, pick, server } = require('./lib/common.js');

const FORMATS = ['wav', 'flac', 'mp3'];

/** A local destination: a directory (ending in "/" or existing) takes the recording's own name. */
async function destination(path, file) {
  if (path.endsWith('/')) return join(path, basename(file));
  try {
    if ((await stat(path)).isDirectory()) return join(path, basename(file));
  } catch {
    // Not there yet: it is the file to write.
  }
  return path;
}

async function readAll(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

module.exports = (RED) => {
  function DeviceAgentRecordNode(config) {
    RED.nodes.createNode(this, config);
    const device = server(RED, this, config);
    const running = new Set();

    this.on('input', async (msg, send, done) => {
      if (!device) return fail(this, new Error('no device-agent config node is selected'), msg, done);
      const duration = Number(pick(msg, 'duration', config.duration));
      const format = String(pick(msg, 'format', config.format) ?? 'wav');
      const deviceId = pick(msg, 'device', config.device);
      const wait = config.wait !== false;
      const output = wait ? config.output || 'record' : 'record';
      if (!(duration > 0))
        return fail(
          this,
          new Error(`duration must be a number of seconds above 0, not ${pick(msg, 'duration', config.duration)}`),
          msg,
          done,
        );
      if (!FORMATS.includes(format)) return fail(this, new Error(`format must be one of wav, flac, mp3, not ${format}`), msg, done);
      const abort = new AbortController();
      running.add(abort);
      try {
        const agent = await device.agent();
        this.status({ fill: 'blue', shape: 'dot', text: `recording ${duration} s` });
        const started = await agent.startRecording({ duration, fileExtension: format, ...(deviceId ? { device: deviceId } : {}) });
        if (!wait) {
          msg.payload = started;
          this.status({ fill: 'blue', shape: 'ring', text: 'started' });
          send(msg);
          return done();
        }
        const record = await agent.waitForRecording({ signal: abort.signal });
        if (record.state !== 'finished' || !record.file) {
          throw new Error(`the recording ended ${record.state}${record.error ? `: ${record.error}` : ''}`);
        }
        msg.recording = record;
        msg.filename = record.file;
        if (output === 'buffer') {
          this.status({ fill: 'blue', shape: 'dot', text: 'fetching' });
          const download = await agent.download(record.file, { signal: abort.signal });
          msg.payload = await readAll(download.body);
        } else if (output === 'file') {
          const to = pick(msg, 'saveTo', config.saveTo);
          if (!to) throw new Error('no local path to save the recording to (the node\'s "Save to", or msg.saveTo)');
          this.status({ fill: 'blue', shape: 'dot', text: 'fetching' });
          const saved = await agent.downloadToFile(record.file, await destination(String(to), record.file), {
            resume: false,
            signal: abort.signal,
          });
          msg.payload = saved.path;
          msg.filename = saved.path;
        } else {
          msg.payload = record;
        }
        this.status({ fill: 'green', shape: 'dot', text: `${basename(record.file)}` });
        send(msg);
        done();
      } catch (err) {
        if (abort.signal.aborted) return done();
        fail(this, err, msg, done);
      } finally {
        running.delete(abort);
      }
    });

    // A redeploy stops waiting (the recording itself goes on on the device, to its duration).
    this.on('close', () => {
      for (const abort of running) abort.abort();
      running.clear();
    });
  }

  RED.nodes.registerType('device-agent record', DeviceAgentRecordNode);
};
