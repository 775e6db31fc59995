// `P/state` (docs/mqtt.md): the device status record (with deviceId and clock) with the manual recording's whole
// status record, the schedule's state and the outbox's answer, always objects.
import type { RecordingRecord } from '../audio/record.ts';
import { parsedJson } from '../ops/operation.ts';
import type { JsonText } from '../status/sampler.ts';

export interface StateSources {
  statusJson(): JsonText | Promise<JsonText>;
  recording(): RecordingRecord;
  /** The `state` object of GET /api/v1/schedule. */
  schedule(): object;
  /** The answer of GET /api/v1/outbox. */
  outbox(): object;
}

export async function deviceState(s: StateSources): Promise<Record<string, unknown>> {
  const status = parsedJson(await s.statusJson()) as Record<string, unknown>;
  return {
    ...status,
    recording: s.recording(),
    schedule: s.schedule(),
    outbox: s.outbox(),
  };
}
