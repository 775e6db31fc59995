// `P/state` (docs/mqtt.md): the device status record with the manual recording's whole
// status record, the schedule's state and the outbox's answer, always objects.
import type { RecordingRecord } from '../audio/record.ts';
import type { JsonText } from '../status/sampler.ts';
import { outboxState, scheduleState } from './sources.ts';

export interface StateSources {
  deviceId: string;
  statusJson(): JsonText | Promise<JsonText>;
  recording(): RecordingRecord;
}

export async function deviceState(s: StateSources): Promise<Record<string, unknown>> {
  const status = JSON.parse((await s.statusJson()).text) as Record<string, unknown>;
  return {
    deviceId: s.deviceId,
    ...status,
    recording: s.recording(),
    schedule: scheduleState(),
    outbox: outboxState(),
  };
}
