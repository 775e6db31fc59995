// What `state` says of the schedule and the outbox (docs/mqtt.md). Each is one function the
// schedule and outbox work repoint to their state objects; until then both are off, as the
// contract words it for a device without them.

/** The `state` object of GET /api/v1/schedule. */
export function scheduleState(): Record<string, unknown> {
  return { state: 'off', reason: 'no schedule', window: null, next: null, lastSegment: null };
}

/** The answer of GET /api/v1/outbox. */
export function outboxState(): Record<string, unknown> {
  return { enabled: false, state: 'off' };
}
