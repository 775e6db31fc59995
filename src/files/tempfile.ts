// One upload part on its way to disk: a temp file created with O_EXCL next to its target,
// written in large batches while the request keeps flowing, fsynced before it may be renamed.
import { crypto } from '../util/crypto.ts';
import { unlinkSync, writev as writevCb } from 'node:fs';
import { fchmod, fsync } from '../util/fsp.ts';
import { closeFd, O, openFd } from './confine.ts';
import type { HeldChunk } from '../native/memory.ts';

/** Orphans of a crash match this and are swept at start (sweep.ts). */
export const TEMP_PATTERN = /^\.device-agent-upload-[0-9a-f]{32}\.tmp$/;

/**
 * Body bytes are written straight from the request's chunks, up to 1 MiB in one writev;
 * each chunk is freed once its bytes are written (HeldChunk in src/native/memory.ts), so a
 * young collection never finds it alive. Against copying the body into reused 256 KiB
 * batches this saves a memmove of every byte and three of every four wake-ups of libuv's
 * pool: 1.6-1.9 -> 1.3-1.6 CPU s/GB side by side (docs/performance.md).
 */
const BATCH = 1024 * 1024;
/**
 * Above this much unwritten data the request is paused (the socket is no longer read
 * until the disk catches up): what one upload holds in memory, two batches, one being
 * written while the next fills (8 uploads: +20 MB peak, docs/performance.md).
 */
const HIGH_WATER = 2 * BATCH;
/**
 * Slices in one writev, and batches waiting for the disk before the request pauses: a
 * body sent in tiny chunks is written (and freed) every 64 of them, and its queue is
 * bounded by count as a large body's is by bytes.
 */
const SLICES = 64;
const BATCHES = 4;

function writev(fd: number, bufs: Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => writevCb(fd, bufs, (err, n) => (err ? reject(err) : resolve(n))));
}

async function writeAll(fd: number, bufs: Buffer[]): Promise<void> {
  let rest = bufs;
  while (rest.length > 0) {
    let n = await writev(fd, rest);
    // A short write (disk nearly full, signal) leaves a tail to write again.
    while (rest[0] !== undefined && n >= rest[0].length) {
      n -= rest[0].length;
      rest = rest.slice(1);
    }
    if (n > 0 && rest[0] !== undefined) rest = [rest[0].subarray(n), ...rest.slice(1)];
  }
}

/** A path through the directory's descriptor: the directory cannot be swapped under us. */
export const inDir = (dirFd: number, name: string) => `/proc/self/fd/${dirFd}/${name}`;

/** Temp files not yet renamed or removed, for the last word of a stopping agent. */
const live = new Set<TempFile>();

/**
 * Removes every upload temp file still on disk, synchronously. The agent calls it after its
 * drain time: a cut connection's 'close' may only arrive after the process has exited.
 */
export function discardLiveTempFiles(): void {
  for (const temp of live) void temp.discard();
}

export class TempFile {
  readonly name = `.device-agent-upload-${crypto().randomBytes(16).toString('hex')}.tmp`;
  dirFd = -1;
  bytes = 0;
  private fd = -1;
  private chain: Promise<void> = Promise.resolve();
  /** Slices of request chunks not yet handed to a write, their bytes, and their chunks. */
  private queued: Buffer[] = [];
  private queuedBytes = 0;
  private queuedChunks: HeldChunk[] = [];
  private unwritten = 0;
  /** Batches handed to the chain and not yet written. */
  private batches = 0;
  private discarded = false;
  private created = false;
  private renamed = false;

  /** `onError` hears the first failure (ENOSPC, EIO...); `onDrain` when writing catches up. */
  constructor(
    dir: Promise<number>,
    private readonly onError: (err: unknown) => void,
    private readonly onDrain: () => void,
  ) {
    live.add(this);
    this.afterChain(async () => {
      this.dirFd = await dir;
      this.fd = await openFd(inDir(this.dirFd, this.name), O.O_WRONLY | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW, 0o644);
      this.created = true;
      if (this.discarded) return this.removeNow();
      await fchmod(this.fd, 0o644); // whatever the umask
    });
  }

  private afterChain(step: () => Promise<void>): Promise<void> {
    const next = this.chain.then(step);
    next.catch((err) => {
      if (!this.discarded) this.onError(err);
    });
    this.chain = next;
    return next;
  }

  /**
   * Queues a slice of a request chunk, held (and so kept alive) until written; false when
   * the request should pause until onDrain.
   */
  push(slice: Buffer, chunk: HeldChunk | undefined): boolean {
    this.unwritten += slice.length;
    this.bytes += slice.length;
    if (slice.length === 0) return this.flowing;
    this.queued.push(slice);
    this.queuedBytes += slice.length;
    if (chunk) {
      chunk.hold();
      this.queuedChunks.push(chunk);
    }
    if (this.queuedBytes >= BATCH || this.queued.length >= SLICES) this.flush();
    return this.flowing;
  }

  private get flowing(): boolean {
    return this.unwritten < HIGH_WATER && this.batches < BATCHES;
  }

  private flush(): void {
    if (this.queuedBytes === 0) return;
    const bufs = this.queued;
    const chunks = this.queuedChunks;
    const size = this.queuedBytes;
    this.queued = [];
    this.queuedChunks = [];
    this.queuedBytes = 0;
    this.batches++;
    this.afterChain(async () => {
      try {
        if (this.discarded) return;
        await writeAll(this.fd, bufs);
      } finally {
        for (const c of chunks) c.drop();
      }
      const paused = !this.flowing;
      this.unwritten -= size;
      this.batches--;
      if (paused && this.flowing) this.onDrain();
    });
  }

  /** Writes the rest, fsyncs and closes; then the file may be renamed into place. */
  finish(): Promise<void> {
    this.flush();
    return this.afterChain(async () => {
      await fsync(this.fd);
      const fd = this.fd;
      this.fd = -1;
      await closeFd(fd);
    });
  }

  /** Removes the temp file now (synchronously: the process may be about to exit); closes later. */
  discard(): Promise<void> {
    live.delete(this);
    this.discarded = true;
    for (const c of this.queuedChunks) c.drop();
    this.queued = [];
    this.queuedChunks = [];
    this.queuedBytes = 0;
    this.removeName();
    return this.chain.catch(() => {}).then(() => this.removeNow());
  }

  /** Settles when everything queued so far is done (rejects on a write failure). */
  get pending(): Promise<void> {
    return this.chain;
  }

  /** The file now lives under its final name; it is no longer ours to remove. */
  markRenamed(): void {
    this.renamed = true;
    live.delete(this);
  }

  private removeName(): void {
    if (!this.created || this.renamed) return;
    try {
      unlinkSync(inDir(this.dirFd, this.name));
    } catch {
      // ENOENT: already removed; any other failure leaves an orphan for the start-up sweep.
    }
  }

  private async removeNow(): Promise<void> {
    this.removeName();
    if (this.fd >= 0) {
      const fd = this.fd;
      this.fd = -1;
      await closeFd(fd).catch(() => {});
    }
  }
}
