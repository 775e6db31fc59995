// The outbox's journal (docs/outbox.md, "Nothing lost"): which version of each file is verified
// in the store, and the multipart uploads under way. One JSON file in the state directory,
// replaced whole by write-then-rename with fsyncs (src/util/atomic.ts): a kill -9 or a power
// cut leaves the old journal or the new one. A file is written into it only after its upload
// is verified, so a crash at any moment can make a file ship again, never be skipped.
import { readFileSync, renameSync } from 'node:fs';
import { replaceFile } from '../util/atomic.ts';
import { errnoName } from '../util/errno.ts';
import type { Log } from '../util/logger.ts';
import type { MultipartState } from './target.ts';

/** A file's version: size, modification time and inode (a file renamed over it is another). */
export interface Stamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

interface Data {
  v: 1;
  /** rel -> [size, mtimeMs, ino] of the version verified in the store. */
  uploaded: Record<string, [number, number, number]>;
  multipart: Record<string, MultipartState>;
}

export const sameStamp = (a: Stamp, b: Stamp): boolean => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

export class Journal {
  private data: Data = { v: 1, uploaded: Object.create(null), multipart: Object.create(null) };

  constructor(
    readonly file: string,
    private readonly log: Log,
  ) {}

  /** Reads the journal; a missing one is empty, an unreadable one is set aside (every file then ships again). */
  load(): void {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new Error(`could not read the outbox journal ${this.file}: ${errnoName(err)}`);
    }
    try {
      const d = JSON.parse(text) as Data;
      if (d.v !== 1 || typeof d.uploaded !== 'object' || typeof d.multipart !== 'object') throw new Error('not a journal');
      this.data = {
        v: 1,
        uploaded: Object.assign(Object.create(null), d.uploaded),
        multipart: Object.assign(Object.create(null), d.multipart),
      };
    } catch (err) {
      // Cannot happen through our writes (rename is atomic); a hand edit or a disk fault. Shipping
      // everything again writes the same keys: nothing is lost, nothing doubled in the store.
      const aside = `${this.file}.bad-${Date.now()}`;
      renameSync(this.file, aside);
      this.log.error(`outbox journal ${this.file} unreadable (${(err as Error).message}); moved to ${aside}, every file ships again`);
    }
  }

  isUploaded(rel: string, s: Stamp): boolean {
    const u = this.data.uploaded[rel];
    return u !== undefined && u[0] === s.size && u[1] === s.mtimeMs && u[2] === s.ino;
  }

  /** Is there any verified version of rel (retention's "uploaded"), whatever its stamp? */
  has(rel: string): boolean {
    return this.data.uploaded[rel] !== undefined;
  }

  stampOf(rel: string): Stamp | undefined {
    const u = this.data.uploaded[rel];
    return u && { size: u[0], mtimeMs: u[1], ino: u[2] };
  }

  multipartOf(rel: string): MultipartState | undefined {
    return this.data.multipart[rel];
  }

  markUploaded(rel: string, s: Stamp): void {
    this.data.uploaded[rel] = [s.size, s.mtimeMs, s.ino];
    delete this.data.multipart[rel];
    this.write();
  }

  setMultipart(rel: string, state: MultipartState | undefined): void {
    if (state) this.data.multipart[rel] = state;
    else delete this.data.multipart[rel];
    this.write();
  }

  /** Drops entries of files that are gone (written with the next change). */
  forget(rel: string): void {
    delete this.data.uploaded[rel];
  }

  multipartPaths(): string[] {
    return Object.keys(this.data.multipart);
  }

  uploadedPaths(): string[] {
    return Object.keys(this.data.uploaded);
  }

  write(): void {
    replaceFile(this.file, JSON.stringify(this.data), { mode: 0o600 });
  }
}
