// Starts the link for src/serve.ts: what the agent owns wired to it. Loaded with the link,
// only when `mqtt` is configured.
import type { Audit } from '../audit/trail.ts';
import type { Recorder } from '../audio/recorder.ts';
import type { EventHub } from '../events/hub.ts';
import { Errors } from '../http/errors.ts';
import type { AgentMetrics } from '../metrics/agent.ts';
import type { StatusSampler } from '../status/sampler.ts';
import type { Log } from '../util/logger.ts';
import type { Outcome, Run } from './commands.ts';
import type { MqttConfig, MqttSecrets } from './config.ts';
import { MqttLink } from './link.ts';
import { deviceState } from './state.ts';

export interface StartDeps {
  deviceId: string;
  log: Log;
  audit: Audit;
  sampler: StatusSampler;
  recorder: Recorder;
  events: EventHub;
  metrics: AgentMetrics;
  /** The operations layer's runner; until it is wired, interimRun. */
  run?: Run;
}

export function startLink(config: MqttConfig, secrets: MqttSecrets, d: StartDeps): MqttLink {
  const link = new MqttLink(config, secrets, {
    deviceId: d.deviceId,
    log: d.log,
    audit: d.audit,
    state: () => deviceState({ statusJson: () => d.sampler.json(), recording: () => d.recorder.status() }),
    onEvent: (listener) => d.events.onEvent(listener),
    run: d.run ?? interimRun(d),
    figures: d.metrics.mqtt,
  });
  d.metrics.watchMqtt(() => link.status().connected);
  link.start();
  return link;
}

/**
 * Until the operations layer (callable without HTTP) is merged: the read-only status
 * actions, with the same scope check and answers as their routes; every other action 501.
 */
function interimRun(d: StartDeps): Run {
  return async (action, principal): Promise<Outcome> => {
    const scope = action === 'status' ? 'status' : 'audio';
    if (action !== 'status' && action !== 'recording/status')
      return { status: 501, body: { error: `not available over MQTT yet: ${action}` } };
    if (!principal.scopes.has(scope)) return { status: 403, body: { error: Errors.insufficientScope(scope).message } };
    if (action === 'status') return { status: 200, body: JSON.parse((await d.sampler.json()).text) };
    return { status: 200, body: d.recorder.status() };
  };
}
