// The order in which recordings were made, kept across restarts (docs/behaviour.md,
// "Recordings and the disk"): retention deletes the oldest by this order, never by the time
// in a name, and ages each from `madeAt`. A file beside the recording state
// (`recordings-order.json`), not in recordingsDir, where a client could list or delete it:
// `{"recordings": [["<path under recordingsDir>", order, madeAt | null], ...]}`.
// (No node:fs or node:path of its own: each module's require of a built-in at start counts
// toward V8 optimizing Node's diagnostics-channel getter, test/unit-bundle.test.ts.)
import { readStateList, replaceStateFileAsync } from '../util/atomic.ts';
import { clockPlausible, monotonicMs } from '../util/clock.ts';
import type { Log } from '../util/logger.ts';

/** A recording as retention weighs it (src/audio/retention.ts). */
export interface Recording {
  /** Path relative to recordingsDir, '/'-separated. */
  name: string;
  /** Place in the order the recordings were made: higher is newer. */
  seq: number;
  /** Wall-clock ms its age counts from; null: made under an implausible clock, not aged yet. */
  madeAt: number | null;
  bytes: number;
}

/** A recording file retention found: its path under recordingsDir, size, mtime, and where to unlink it. */
export interface Found {
  name: string;
  bytes: number;
  mtimeMs: number;
  /** The descriptor of its directory and its name there. */
  dir: number;
  base: string;
}

type Entry = [seq: number, madeAt: number | null];

/** The record is written at most this often (see save()). */
const SAVE_EVERY_MS = 60_000;

export class RecordingOrder {
  private entries: Map<string, Entry> | undefined;
  private next = 0;
  private dirty = false;
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private lastWrite = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly file: string,
    private readonly log: Log,
  ) {}

  /** Missing: empty. Unreadable or broken: empty too (logged), and rebuilt from the files found. */
  private load(): Map<string, Entry> {
    if (this.entries) return this.entries;
    this.entries = new Map();
    let list: unknown[];
    try {
      list = readStateList(this.file, 'recordings', 'recordings order record', (text) => new Error(text));
    } catch (err) {
      this.log.error(`retention: ${(err as Error).message}; ordering the recordings by their files' times`);
      return this.entries;
    }
    for (const e of list) {
      if (Array.isArray(e) && typeof e[0] === 'string' && Number.isSafeInteger(e[1]) && (e[2] === null || Number.isFinite(e[2]))) {
        this.entries.set(e[0], [e[1] as number, e[2] as number | null]);
      }
    }
    this.next = Math.max(-1, ...[...this.entries.values()].map((e) => e[0])) + 1;
    return this.entries;
  }

  /**
   * Writes the record on the thread pool (never an fsync on the event loop), at most once a
   * SAVE_EVERY_MS, the last state winning: a schedule's pass follows every segment, and the
   * whole record rewritten after each (30,000 recordings are ~1.8 MB) would wear an SD card
   * by gigabytes a day. A power cut before the write costs nothing: the next pass places the
   * recordings the file does not name by their files' times. `flush()` writes now.
   */
  private save(): void {
    this.dirty = true;
    if (this.writing || this.timer) return;
    const wait = this.lastWrite + SAVE_EVERY_MS - monotonicMs();
    if (wait <= 0) {
      this.writing = this.write();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.writing ??= this.write();
    }, wait);
    this.timer.unref();
  }

  private async write(): Promise<void> {
    this.dirty = false;
    const recordings = [...(this.entries ?? [])].map(([name, [seq, madeAt]]) => [name, seq, madeAt]);
    try {
      await replaceStateFileAsync(this.file, `${JSON.stringify({ recordings })}\n`);
    } catch (err) {
      this.log.error(`retention: cannot write ${this.file}: ${String(err)}`);
    } finally {
      this.lastWrite = monotonicMs();
      this.writing = null;
      if (this.dirty) this.save(); // changed meanwhile: written after the interval
    }
  }

  /** Writes what waits now (a clean stop); resolves once the file holds the record as it is. */
  async flush(): Promise<void> {
    for (;;) {
      clearTimeout(this.timer);
      this.timer = undefined;
      if (this.writing) await this.writing;
      else if (this.dirty) this.writing = this.write();
      else return;
    }
  }

  /**
   * The recordings found, each with its place in the order. A recording the record does not
   * know (it just ended, or came before the record existed) is placed after every known one,
   * several in the order of their files' times; one whose file time is implausible is not
   * aged until the clock is plausible, and then from that moment (`now`).
   */
  reconcile(found: Found[], now: number): Recording[] {
    const entries = this.load();
    let changed = false;
    const present = new Set(found.map((f) => f.name));
    for (const name of entries.keys()) {
      if (!present.has(name)) {
        entries.delete(name);
        changed = true;
      }
    }
    const unknown = found.filter((f) => !entries.has(f.name)).sort((a, b) => a.mtimeMs - b.mtimeMs || (a.name < b.name ? -1 : 1));
    for (const f of unknown) {
      entries.set(f.name, [this.next++, clockPlausible(f.mtimeMs) ? f.mtimeMs : null]);
      changed = true;
    }
    if (clockPlausible(now)) {
      for (const e of entries.values()) {
        if (e[1] === null) {
          e[1] = now;
          changed = true;
        }
      }
    }
    if (changed) this.save();
    return found.map((f) => {
      const [seq, madeAt] = entries.get(f.name)!;
      return { name: f.name, seq, madeAt, bytes: f.bytes };
    });
  }

  /** Recordings not aged yet (made under an implausible clock). */
  get waiting(): boolean {
    return [...(this.entries?.values() ?? [])].some((e) => e[1] === null);
  }

  /**
   * Drops deleted recordings from the record in memory; the file follows with the next
   * change (a record naming a file that is gone is dropped at the next pass anyway).
   */
  forget(names: string[]): void {
    const entries = this.load();
    for (const n of names) entries.delete(n);
  }
}
