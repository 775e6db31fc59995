// Every figure the agent exports (docs/api.md#metrics), named once. Modules receive the cells
// they count into; the scrape renders the registry.
import type { OutboxFigures } from '../outbox/service.ts';
import { VERSION } from '../util/version.ts';
import { HttpMetrics } from './http.ts';
import { processMetrics } from './process.ts';
import { Counter, Registry, Sampled, type Cell, type Counted } from './registry.ts';
import type { MqttFigures } from '../mqtt/status.ts';

/** What the TLS listener knows, read at scrape time (src/tls/ plugs in here). */
export interface TlsFigures {
  /** Connections whose handshake failed since start. */
  handshakeFailures(): number;
  /** The served certificate's notAfter, seconds since the epoch; undefined when none loaded. */
  certExpirySeconds(): number | undefined;
}

export type Direction = 'download' | 'upload';
export type RecordingResult = 'finished' | 'failed';

export class AgentMetrics {
  private readonly registry = new Registry();
  readonly http: HttpMetrics;
  readonly loginFailures: Cell;
  readonly loginThrottled: Cell;
  /**
   * By direction: file content bytes (sent to a downloading client, written into uploaded
   * files) and files (downloads sent whole, files stored by uploads).
   */
  readonly transfers: Record<Direction, Counted>;
  readonly recordings: Record<RecordingResult, Cell>;
  /** Segments the schedule stored (docs/schedule.md). */
  readonly segments: Cell;
  private recordingOnSchedule = 0;
  private tls: TlsFigures | undefined;
  private outbox: (() => OutboxFigures | undefined) | undefined;
  /** The MQTT link's counts; its series appear once a link is configured (watchMqtt). */
  readonly mqtt: MqttFigures;
  private mqttConnected: (() => boolean) | undefined;
  private readonly clearMqtt: () => void;

  constructor() {
    const r = this.registry;
    r.add(new Sampled('device_agent_build_info', 'Always 1; the agent version as a label', ['version'], [VERSION], () => 1));
    this.http = new HttpMetrics(r);
    this.loginFailures = r
      .add(new Counter('device_agent_login_failures_total', 'Logins refused for a wrong password or an unknown user'))
      .cell();
    this.loginThrottled = r
      .add(new Counter('device_agent_login_throttled_total', 'Logins refused with 429 after too many failures for one address and user'))
      .cell();
    const transfer = r.add(
      new Counter(
        'device_agent_transfer_bytes_total',
        'File content bytes sent by downloads and written by uploads (no headers, no multipart framing)',
        ['direction'],
      ),
    );
    const files = r.add(new Counter('device_agent_files_total', 'Downloads sent whole and files stored by uploads', ['direction']));
    const counted = (d: Direction): Counted => ({ bytes: transfer.cell(d), files: files.cell(d) });
    this.transfers = { download: counted('download'), upload: counted('upload') };
    const recordings = r.add(new Counter('device_agent_recordings_total', 'Recordings ended, by result', ['result']));
    this.recordings = { finished: recordings.cell('finished'), failed: recordings.cell('failed') };
    this.segments = r.add(new Counter('device_agent_segments_total', 'Segments the schedule recorded and stored')).cell();
    r.add(new Sampled('device_agent_schedule_recording', '1 while the schedule records, else 0', [], [], () => this.recordingOnSchedule));
    r.add(
      new Sampled(
        'device_agent_tls_handshake_failures_total',
        'TLS handshakes that failed',
        [],
        [],
        () => this.tls?.handshakeFailures(),
        'counter',
      ),
    );
    r.add(
      new Sampled(
        'device_agent_tls_certificate_expiry_timestamp_seconds',
        'notAfter of the certificate served, seconds since the epoch',
        [],
        [],
        () => this.tls?.certExpirySeconds(),
      ),
    );
    // The outbox's series appear only while it is on (docs/outbox.md).
    const o = <K extends keyof OutboxFigures>(name: string, help: string, key: K, type: 'gauge' | 'counter' = 'gauge') =>
      r.add(new Sampled(name, help, [], [], () => this.outbox?.()?.[key], type));
    o('device_agent_outbox_pending_files', 'Complete files waiting for upload', 'pendingFiles');
    o('device_agent_outbox_pending_bytes', 'Bytes of the files waiting for upload', 'pendingBytes');
    o('device_agent_outbox_oldest_pending_age_seconds', 'Age of the oldest file waiting for upload', 'oldestPendingAgeSeconds');
    o('device_agent_outbox_uploaded_bytes_total', 'File bytes uploaded and verified since start', 'uploadedBytesTotal', 'counter');
    o('device_agent_outbox_failures_total', 'Failed upload attempts and files set aside since start', 'failuresTotal', 'counter');
    o('device_agent_outbox_dropped_files_total', 'Files deleted by retention before their upload', 'droppedFilesTotal', 'counter');
    const connects: Cell = { value: 0 };
    const on = (read: () => number) => () => (this.mqttConnected ? read() : undefined);
    r.add(
      new Sampled(
        'device_agent_mqtt_connected',
        'Whether the MQTT link is connected (0/1)',
        [],
        [],
        on(() => (this.mqttConnected?.() ? 1 : 0)),
      ),
    );
    r.add(
      new Sampled(
        'device_agent_mqtt_connects_total',
        'Connections the MQTT link made',
        [],
        [],
        on(() => connects.value),
        'counter',
      ),
    );
    const commands = r.add(
      new Counter('device_agent_mqtt_commands_total', 'Commands received over MQTT, by action and answer status', ['action', 'status']),
    );
    this.mqtt = { connects, command: (action, status) => commands.cell(action, String(status)).value++ };
    this.clearMqtt = () => {
      connects.value = 0;
      commands.clear();
    };
    processMetrics(r);
  }

  /** The schedule's state: recording or not. */
  scheduleRecording(on: boolean): void {
    this.recordingOnSchedule = on ? 1 : 0;
  }

  /** The outbox's figures, read at scrape time while it is on. */
  watchOutbox(figures: () => OutboxFigures | undefined): void {
    this.outbox = figures;
  }

  /**
   * The MQTT link's series appear (src/serve.ts, with `mqtt` configured); `undefined` (the link
   * stopped by a reload) removes them all, the counts included: a link set again counts from 0.
   */
  watchMqtt(connected: (() => boolean) | undefined): void {
    if (!connected) this.clearMqtt();
    this.mqttConnected = connected;
  }

  /** The TLS figures appear once a TLS listener reports them. */
  watchTls(figures: TlsFigures): void {
    this.tls = figures;
  }

  render(): string {
    return this.registry.render();
  }
}
