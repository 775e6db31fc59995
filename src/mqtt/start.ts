// Starts the link for src/serve.ts: what the agent owns wired to it. Loaded with the link,
// only when `mqtt` is configured.
import type { Audit } from '../audit/trail.ts';
import type { Recorder } from '../audio/recorder.ts';
import type { EventHub } from '../events/hub.ts';
import type { AgentMetrics } from '../metrics/agent.ts';
import type { StatusSampler } from '../status/sampler.ts';
import type { Log } from '../util/logger.ts';
import type { Run } from './commands.ts';
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
  /** The operations, called without HTTP (src/ops/invoke.ts, the running app's). */
  run: Run;
  /** The schedule's state object and the outbox's answer, as their GET routes give them. */
  scheduleState: () => object;
  outboxState: () => object;
}

export function startLink(config: MqttConfig, secrets: MqttSecrets, d: StartDeps): MqttLink {
  const link = new MqttLink(config, secrets, {
    deviceId: d.deviceId,
    log: d.log,
    audit: d.audit,
    state: () =>
      deviceState({
        statusJson: () => d.sampler.json(),
        recording: () => d.recorder.status(),
        schedule: d.scheduleState,
        outbox: d.outboxState,
      }),
    onEvent: (listener) => d.events.onEvent(listener),
    run: d.run,
    figures: d.metrics.mqtt,
  });
  d.metrics.watchMqtt(() => link.status().connected);
  link.start();
  return link;
}
