// What the device-agent nodes share: the client library (an ES module, loaded once with
// import() since Node-RED loads nodes as CommonJS), errors in words a flow author reads,
// and the node status shown under each node in the editor.
'use strict';

let client;
/** The device-agent-client module, imported on first use. */
function loadClient() {
  client ??= import('device-agent-client');
  return client;
}

/**
 * An error of the client library as { short, text }: `short` fits under a node in the
 * editor, `text` is the whole story for the debug sidebar and catch nodes.
 */
function describe(err) {
  const e = err ?? {};
  if (e.name === 'TrustError') {
    if (e.expectedPin && e.presentedPin) {
      return {
        short: 'wrong pin',
        text: `the device's key is not the pinned one: pinned ${e.expectedPin}, the device presented ${e.presentedPin}`,
      };
    }
    // The library's text ends with advice for its command line; the first sentence is the fact.
    return { short: 'untrusted certificate', text: String(e.message).replace(/ Log in (again )?with .*$/s, '') };
  }
  if (e.name === 'ApiError') return { short: `${e.status} ${e.error}`, text: `device-agent answered ${e.status}: ${e.error}` };
  if (e.name === 'ConnectionError') return { short: 'no connection', text: e.message };
  const text = e.message ?? String(err);
  return { short: text, text };
}

/** The config node a node points at, or an error naming what is missing. */
function server(RED, node, config) {
  const s = config.server ? RED.nodes.getNode(config.server) : null;
  if (!s) node.status({ fill: 'red', shape: 'ring', text: 'no device' });
  return s;
}

/** Shows a failure under the node and hands it to Node-RED (catch nodes, the log). */
function fail(node, err, msg, done) {
  const d = describe(err);
  node.status({ fill: 'red', shape: 'ring', text: d.short });
  if (err && err.name === 'ApiError' && msg) msg.statusCode = err.status;
  // A string, not an Error: catch nodes then get the text itself in msg.error.message.
  if (done) done(d.text);
  else node.error(d.text, msg);
}

/**
 * A setting as Node-RED's own nodes take it: the node's, when set in the editor; else the
 * message's property (msg[key]); else undefined.
 */
function pick(msg, key, configured) {
  const unset = (v) => v === undefined || v === null || v === '';
  if (!unset(configured)) return configured;
  return unset(msg[key]) ? undefined : msg[key];
}

module.exports = { loadClient, describe, server, fail, pick };
