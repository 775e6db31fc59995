// One upload part on its way to disk: a temp file created with O_EXCL next to its target,
// written in large batches while the request keeps flowing, fsynced before it may be renamed.
import { crypto } from '../util/crypto.ts';
import { unlinkSync, writev as writevCb } from 'node:fs';
import { fchmod, fsync } from '../util/fsp.ts';
import { closeFd, O, openFd } from './confine.ts';

/** Orphans of a crash match this and are swept at start (sweep.ts). */
export const TEMP_PATTERN = /^\.device-agent-upload-[0-9a-f]{32}\.tmp$/;

/**
 * Body bytes are copied into batches of this size, each written with one call and then
 * reused: the request's own chunks are garbage as soon as they are copied, so a young
 * collection frees them (kept until written, they outlived young collections and waited
 * in the old generation for a full one: docs/performance.md).
 */
const BATCH = 256 * 1024;
/**
 * Above this much unwritten data the request is paused (the socket is no longer read
 * until the disk catches up): what one upload holds in memory, two or three batches.
 * 8 MiB, then 2 MiB before: 8 uploads could hold 64 MiB.
 */
const HIGH_WATER = 2 * BATCH;

function writev(fd: number, bufs: Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => writevCb(fd, bufs, (err, n) => (err ? reject(err) : resolve(n))));
}

async function writeAll(fd: number, bufs: Buffer[]): Promise<void> {
  let rest = bufs;
  while (rest.length > 0) {
    let n = await writev(fd, rest);
    // A short write (disk nearly full, signal) leaves a tail to write again.
    while (rest[0] !== undefined && n >= rest[0].length) { n -= rest[0].length; rest = rest.slice(1); }
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
  /** The batch being filled, its bytes, and written batches to fill again. */
  private fill: Buffer | undefined;
  private filled = 0;
  private spare: Buffer[] = [];
  private unwritten = 0;
  private discarded = false;
  private created = false;
  private renamed = false;

  /** `onError` hears the first failure (ENOSPC, EIO...); `onDrain` when writing catches up. */
  constructor(dir: Promise<number>, private readonly onError: (err: unknown) => void, private readonly onDrain: () => void) {
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
    next.catch((err) => { if (!this.discarded) this.onError(err); });
    this.chain = next;
    return next;
  }

  /** Copies bytes into the batch; false when the request should pause until onDrain. */
  push(chunk: Buffer): boolean {
    this.unwritten += chunk.length;
    this.bytes += chunk.length;
    for (let from = 0; from < chunk.length;) {
      this.fill ??= this.spare.pop() ?? Buffer.allocUnsafeSlow(BATCH);
      const n = chunk.copy(this.fill, this.filled, from);
      this.filled += n;
      from += n;
      if (this.filled === BATCH) this.flush();
    }
    return this.unwritten < HIGH_WATER;
  }

  private flush(): void {
    if (this.fill === undefined || this.filled === 0) return;
    const batch = this.fill;
    const size = this.filled;
    this.fill = undefined;
    this.filled = 0;
    this.afterChain(async () => {
      if (this.discarded) return;
      await writeAll(this.fd, [batch.subarray(0, size)]);
      this.spare.push(batch);
      const before = this.unwritten;
      this.unwritten -= size;
      if (before >= HIGH_WATER && this.unwritten < HIGH_WATER) this.onDrain();
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
    this.fill = undefined;
    this.spare = [];
    this.removeName();
    return this.chain.catch(() => {}).then(() => this.removeNow());
  }

  /** Settles when everything queued so far is done (rejects on a write failure). */
  get pending(): Promise<void> { return this.chain; }

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
