// Where the schedule meets the running agent: the service is made (and the schedule's
// modules loaded) only once a schedule file exists or a schedule route is asked; until
// then the one cost is a stat of the file on the pollers' shared 1 s timer, so a schedule
// written by the CLI or by hand applies within 2 s (docs/schedule.md). Once made, the
// service's look of every second rides on that same poll: no timer of its own.
import type { Captures } from '../audio/captures.ts';
import { capturingAt } from '../audio/messages.ts';
import { fileStamp, pollStamp, type Poller } from '../util/file-stamp.ts';
import { lazy } from '../util/lazy.ts';
import type { Log } from '../util/logger.ts';
import type { ScheduleDeps, ScheduleService } from './service.ts';

export interface ScheduleHost {
  service(): Promise<ScheduleService>;
  /** The service if it was made. */
  loaded(): ScheduleService | undefined;
  /** A manual start's format against the capture the schedule records from: the 409's text, else null. */
  conflict(device: string, rate: number, channels: number): string | null;
  close(): Promise<void>;
}

export function scheduleHost(deps: ScheduleDeps & { captures: Captures; log: Log }): ScheduleHost {
  let made: ScheduleService | undefined;
  const service = lazy('schedule service', () =>
    import('./service.ts').then((m) => {
      made = new m.ScheduleService(deps);
      made.reload();
      return made;
    }),
  );
  let seen = fileStamp(deps.file());
  if (!seen.startsWith('E')) void service(); // a schedule is stored: it runs from the start
  // 1000 ms: also the service's look interval (LOOK_MS in ./service.ts).
  const poller: Poller = pollStamp(deps.file, 1000, (stamp) => {
    if (stamp === seen) return made?.tick();
    seen = stamp;
    if (made) made.reload();
    else if (!stamp.startsWith('E')) void service();
  });
  return {
    service,
    loaded: () => made,
    conflict(device, rate, channels) {
      if (made?.recordingDevice !== device) return null;
      const c = deps.captures.get(device);
      if (!c || c.ended || c.stopping || (c.format.rate === rate && c.format.channels === channels)) return null;
      return capturingAt(device, c.format);
    },
    async close() {
      poller.stop();
      await made?.close();
    },
  };
}
