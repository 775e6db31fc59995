// device-agent record: starts a recording on the device; optionally waits for its end and
// brings the file back, into msg.payload as a Buffer or into a local file. Its Action may
// instead work on the device's recording schedule (docs/schedule.md): show it, set it from
// msg.payload, preview it (the stored one, or msg.payload's before it is set), or clear it.
'use strict';
const { stat } = require('node:fs/promises');
const { basename, join } = require('node:path');
const { fail, pick, server } = require('./lib/common.js');

const FORMATS = ['wav', 'flac', 'mp3'];
const ACTIONS = ['record', 'schedule-show', 'schedule-set', 'schedule-preview', 'schedule-clear'];

/** msg.payload as a schedule document: an object, or its JSON text; else undefined. */
function documentOf(payload) {
  let doc = payload;
  if (typeof doc === 'string' && doc.trim().startsWith('{')) {
    try {
      doc = JSON.parse(doc);
    } catch (err) {
      throw new Error(`msg.payload is not a JSON schedule document: ${err.message}`);
    }
  }
  return typeof doc === 'object' && doc !== null && !Array.isArray(doc) && !Buffer.isBuffer(doc) ? doc : undefined;
}

/** The schedule actions: msg.payload the API's answer (GET's for show, set and clear; the preview's). */
async function scheduleAction(node, agent, action, msg) {
  if (action === 'schedule-set') {
    const doc = documentOf(msg.payload);
    if (!doc) throw new Error('set schedule takes msg.payload as a schedule document: an object, or its JSON text');
    node.status({ fill: 'blue', shape: 'dot', text: 'setting schedule' });
    return agent.setSchedule(doc);
  }
  if (action === 'schedule-preview') {
    const doc = documentOf(msg.payload);
    return agent.schedulePreview({
      ...(doc ? { schedule: doc } : {}),
      ...(msg.from === undefined ? {} : { from: msg.from }),
      ...(msg.days === undefined ? {} : { days: msg.days }),
    });
  }
  if (action === 'schedule-clear') await agent.clearSchedule();
  return agent.schedule();
}

const shown = (answer) => `schedule: ${answer.state.state}${answer.state.reason ? ` (${answer.state.reason})` : ''}`;

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
      const action = config.action || 'record';
      if (!ACTIONS.includes(action)) return fail(this, new Error(`action must be one of ${ACTIONS.join(', ')}, not ${action}`), msg, done);
      if (action !== 'record') {
        try {
          const answer = await scheduleAction(this, await device.agent(), action, msg);
          msg.payload = answer;
          this.status({
            fill: 'green',
            shape: 'dot',
            text: action === 'schedule-preview' ? `preview: ${answer.windows.length} window(s)` : shown(answer),
          });
          send(msg);
          return done();
        } catch (err) {
          return fail(this, err, msg, done);
        }
      }
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
