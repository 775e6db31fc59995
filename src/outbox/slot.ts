// The outbox as the rest of the agent sees it: off (nothing loaded) or on. The service module
// loads on first use only (src/util/lazy.ts), so an agent without `outbox` loads none of it.
import type { Audit } from '../audit/trail.ts';
import type { Config } from '../config/config.ts';
import { lazy } from '../util/lazy.ts';
import type { Log } from '../util/logger.ts';
import { joinName } from '../util/paths.ts';
import type { Outbox, OutboxFigures } from './service.ts';
import type { toDelete } from '../audio/retention.ts';
import { toDeletePreferringUploaded } from './retention-order.ts';

const service = lazy('outbox', () => import('./service.ts'));

/** The journal's place: the state directory, beside usersFile. */
export const journalFileOf = (config: Config): string =>
  joinName(config.usersFile.slice(0, config.usersFile.lastIndexOf('/')) || '/', 'outbox.json');

export interface SlotDeps {
  log: Log;
  audit: Audit;
  publish(event: string, data: object): void;
}

export class OutboxSlot {
  private outbox: Outbox | undefined;
  private pending: Promise<void> = Promise.resolve();

  constructor(private readonly deps: SlotDeps) {}

  get on(): Outbox | undefined {
    return this.outbox;
  }

  /** Starts, reconfigures or stops the outbox for this config; in order, one change at a time. */
  apply(config: Config): Promise<void> {
    this.pending = this.pending.then(async () => {
      if (!config.outbox) {
        this.outbox?.stop();
        this.outbox = undefined;
        return;
      }
      if (this.outbox) {
        this.outbox.configure(config);
        return;
      }
      const { Outbox } = await service();
      this.outbox = new Outbox({ config, journalFile: journalFileOf(config), ...this.deps });
      this.outbox.start();
    });
    return this.pending;
  }

  status(): object {
    return this.outbox?.status() ?? { enabled: false, state: 'off' };
  }

  /** Undefined while the outbox is off; else true, false, or null outside outbox.paths. */
  uploadedOf(abs: string): boolean | null | undefined {
    return this.outbox?.uploadedOf(abs);
  }

  /** Retention's choice with the outbox on: uploaded recordings first; undefined (the default) while off. */
  retentionChoice(recordingsDir: string): typeof toDelete | undefined {
    const outbox = this.outbox;
    if (!outbox) return undefined;
    return (recordings, limits, pass) =>
      toDeletePreferringUploaded(recordings, limits, pass, (name) => outbox.uploadedOf(joinName(recordingsDir, name)) === true);
  }

  /** Retention deleted a file: false when it was not uploaded (counted by the outbox), else true or null. */
  deleted(abs: string): boolean | null | undefined {
    return this.outbox?.deleted(abs, 'retention');
  }

  /** Below `minFree` under `dir`: uploaded files go first (Outbox.reclaim); nothing while the outbox is off. */
  reclaim(minFree: number, dir: string): number {
    return this.outbox?.reclaim(minFree, dir) ?? 0;
  }

  figures(): OutboxFigures | undefined {
    return this.outbox?.figures();
  }

  stop(): void {
    this.outbox?.stop();
  }
}
