// Home Assistant's device discovery (docs/mqtt.md, "Home Assistant"): one retained message on
// <discoveryPrefix>/device/<deviceId>/config naming the device, its availability and state
// topics and its components. Every value_template reads a field that `state` carries.
import { VERSION } from '../util/version.ts';

export const HOME_PAGE = 'https://github.com/device-agent/device-agent';

export interface DiscoveryInput {
  deviceId: string;
  /** `<topicPrefix>/<deviceId>` */
  base: string;
  /** The state as last published: which optional sensors apply. */
  state: Record<string, unknown>;
  /** `audio` among mqtt.commandScopes: the Record button. */
  canRecord: boolean;
}

type Component = Record<string, unknown>;

export function discoveryTopic(prefix: string, deviceId: string): string {
  return `${prefix}/device/${deviceId}/config`;
}

export function discoveryPayload(d: DiscoveryInput): Record<string, unknown> {
  const cmps: Record<string, Component> = {};
  const add = (key: string, c: Component) => {
    cmps[key] = { ...c, unique_id: `${d.deviceId}_${key}` };
  };
  const sensor = (name: string, template: string, extra: Component = {}) => ({ p: 'sensor', name, value_template: template, ...extra });
  add('cpu_load', sensor('CPU load', '{{ value_json.cpu.loadPercent }}', { unit_of_measurement: '%', state_class: 'measurement' }));
  add(
    'memory_used',
    sensor('Memory used', '{{ (value_json.memory.usedBytes / value_json.memory.totalBytes * 100) | round(1) }}', {
      unit_of_measurement: '%',
      state_class: 'measurement',
    }),
  );
  add(
    'disk_free',
    sensor('Disk free', '{{ value_json.disk.availableBytes }}', {
      unit_of_measurement: 'B',
      device_class: 'data_size',
      state_class: 'measurement',
    }),
  );
  const cpu = d.state.cpu as { temperatureCelsius?: unknown } | undefined;
  if (typeof cpu?.temperatureCelsius === 'number') {
    add(
      'temperature',
      sensor('Temperature', '{{ value_json.cpu.temperatureCelsius }}', {
        unit_of_measurement: '°C',
        device_class: 'temperature',
        state_class: 'measurement',
      }),
    );
  }
  add('uptime', sensor('Uptime', '{{ value_json.uptimeSeconds }}', { unit_of_measurement: 's', device_class: 'duration' }));
  add('recording_state', sensor('Recording state', '{{ value_json.recording.state }}'));
  const outbox = d.state.outbox as { enabled?: unknown } | undefined;
  if (outbox?.enabled === true)
    add('outbox_pending', sensor('Outbox pending', '{{ value_json.outbox.pending.files }}', { unit_of_measurement: 'files' }));
  add('recording', {
    p: 'binary_sensor',
    name: 'Recording',
    value_template: "{{ 'ON' if value_json.recording.state == 'recording' else 'OFF' }}",
  });
  add('schedule_recording', {
    p: 'binary_sensor',
    name: 'Schedule recording',
    value_template: "{{ 'ON' if value_json.schedule.state == 'recording' else 'OFF' }}",
  });
  if (d.canRecord) {
    add('record', {
      p: 'button',
      name: 'Record',
      cmd_t: `${d.base}/command/recording/start`,
      payload_press: JSON.stringify({ duration: 10, fileExtension: 'flac' }),
    });
  }
  return {
    dev: { identifiers: [`device-agent-${d.deviceId}`], name: d.deviceId, model: 'device-agent', sw_version: VERSION },
    o: { name: 'device-agent', sw: VERSION, url: HOME_PAGE },
    avty_t: `${d.base}/availability`,
    stat_t: `${d.base}/state`,
    cmps,
  };
}
