// The order in which recordings were made, kept across restarts (docs/behaviour.md,
// "Recordings and the disk"): retention deletes the oldest by this order, never by the time
// in a name, and ages each from `madeAt`. A file beside the recording state
// (`recordings-order.json`), not in recordingsDir, where a client could list or delete it:
// `{"next": N, "recordings": {"<path under recordingsDir>": [seq, madeAt | null]}}`.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { replaceStateFile } from '../util/atomic.ts';
import { clockPlausible } from '../util/clock.ts';
import type { Log } from '../util/logger.ts';
import { joinName } from '../util/paths.ts';

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

export function recordingOrderFile(usersFile: string): string {
  return joinName(dirname(usersFile), 'recordings-order.json');
}

export class RecordingOrder {
  private entries: Map<string, Entry> | undefined;
  private next = 0;

  constructor(
    private readonly file: string,
    private readonly log: Log,
  ) {}

  /** Missing: empty. Unreadable or broken: empty too (logged), and rebuilt from the files found. */
  private load(): Map<string, Entry> {
    if (this.entries) return this.entries;
    this.entries = new Map();
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log.error(`retention: cannot read ${this.file}: ${String(err)}`);
      return this.entries;
    }
    try {
      const raw = JSON.parse(text) as { next: unknown; recordings: Record<string, unknown> };
      for (const [name, e] of Object.entries(raw.recordings)) {
        if (Array.isArray(e) && Number.isSafeInteger(e[0]) && (e[1] === null || Number.isFinite(e[1]))) {
          this.entries.set(name, [e[0] as number, e[1] as number | null]);
        }
      }
      const top = Math.max(-1, ...[...this.entries.values()].map((e) => e[0]));
      this.next = Number.isSafeInteger(raw.next) ? Math.max(raw.next as number, top + 1) : top + 1;
    } catch {
      this.log.error(`retention: ${this.file} is not a valid order record; ordering the recordings by their files' times`);
      this.entries.clear();
    }
    return this.entries;
  }

  private save(): void {
    const recordings = Object.fromEntries(this.entries ?? []);
    try {
      replaceStateFile(this.file, `${JSON.stringify({ next: this.next, recordings })}\n`);
    } catch (err) {
      this.log.error(`retention: cannot write ${this.file}: ${String(err)}`);
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
