// The schedule's `state` object (docs/schedule.md, "API"): its shape, and what it is while no
// schedule file exists. Apart from service.ts, which loads only with a schedule, so that the
// MQTT link's state (serve.ts) says "off" without loading it.

export type StateName = 'off' | 'waiting' | 'recording';

export interface ScheduleState {
  state: StateName;
  reason: string | null;
  window: { start: string; end: string } | null;
  next: { start: string; end: string } | null;
  lastSegment: { file: string; startedAt: string; durationSeconds: number; sizeBytes: number } | null;
}

/** The state before the service is made (no schedule file): the MQTT link's `state` says this, and the service starts from it. */
export const SCHEDULE_OFF: ScheduleState = Object.freeze({
  state: 'off',
  reason: 'no schedule',
  window: null,
  next: null,
  lastSegment: null,
});
