// The outbox (docs/outbox.md): finds complete files under outbox.paths, ships them one at a
// time to the target, records each verified upload in the journal, and waits with one
// backoff while the target fails. Loaded only when `outbox` is configured (src/outbox/slot.ts).
import { closeSync, lstatSync, openSync, readSync, realpathSync, type Stats, statSync, unlinkSync } from 'node:fs';
import { freeBytes } from '../audio/disk-guard.ts';
import { realpath, stat, unlink } from '../util/fsp.ts';
import { type Audit, auditDeleted } from '../audit/trail.ts';
import type { Config } from '../config/config.ts';
import { onFileCompleted } from '../util/completed.ts';
import { errnoName } from '../util/errno.ts';
import type { Log } from '../util/logger.ts';
import { isWithin, joinName } from '../util/paths.ts';
import { type OutboxConfig, outboxSecret } from './config.ts';
import { shipsByName } from './eligible.ts';
import { Journal, type Stamp, sameStamp } from './journal.ts';
import { PendingQueue } from './queue.ts';
import { makeTarget } from './targets.ts';
import type { Job, Target } from './target.ts';
import { type Digests, digestRange, RateLimit } from './transfer.ts';
import { walk } from './walk.ts';
import { isoTime } from '../util/time.ts';
import { monotonicMs } from '../util/clock.ts';
import { settleNow } from '../native/memory.ts';

/** A file other programs write counts as complete once unchanged this long. */
export const SETTLE_MS = 10_000;
const SCAN_MS = 60_000;
/**
 * A scan that looked at this many files is followed by the settle an upload burst gets
 * (src/native/memory.ts): each file's directory entry and Stats are garbage once queued,
 * and V8 grew its young generation for them and keeps it grown. At once, not a second later:
 * the scan is over, and its memory should be back by the time anyone looks.
 */
const SETTLE_AFTER_FILES = 1000;
const YOUNG_CHECK_MS = 2_000;
const DAY_MS = 86_400_000;
const FIRST_BACKOFF_MS = 2_000;
/**
 * Files shipped at once, each by its own worker taking the oldest file not under way: one
 * transfer at a time reached 0.41 × rclone copy's throughput (its default, 4 transfers) to the
 * same store in bench/outbox.mjs. A file's multipart parts still go one after the other.
 */
const TRANSFERS = 4;

export interface OutboxDeps {
  config: Config;
  /** The journal's file: outbox.json in the state directory (beside usersFile). */
  journalFile: string;
  log: Log;
  audit: Audit;
  publish(event: string, data: object): void;
}

export interface OutboxFigures {
  pendingFiles: number;
  pendingBytes: number;
  oldestPendingAgeSeconds: number | undefined;
  uploadedBytesTotal: number;
  failuresTotal: number;
  droppedFilesTotal: number;
}

const stampOf = (st: Stats): Stamp => ({ size: st.size, mtimeMs: st.mtimeMs, ino: st.ino });
const fileError = (err: unknown): string | undefined => {
  const e = err as NodeJS.ErrnoException;
  return e && typeof e.path === 'string' && typeof e.code === 'string' ? e.code : undefined;
};

export class Outbox {
  private config: OutboxConfig;
  private target: Target;
  private readonly journal: Journal;
  private readonly limit: RateLimit;
  private readonly pending = new PendingQueue();
  /**
   * Files seen still changing (or dated ahead of the clock): queued once unchanged for
   * SETTLE_MS by their modification time, or by the agent's own clock since it first saw
   * this version (`since`, monotonic), whichever comes first. A file written while the clock
   * was ahead, then stepped back, would otherwise wait for its date to come round.
   */
  private readonly young = new Map<string, { abs: string; stamp: Stamp; since: number }>();
  private readonly failed = new Map<string, { abs: string; stamp: Stamp | undefined; error: string; since: string }>();
  private readonly baseDir: string;
  private readonly baseReal: string;
  private uploaded = { files: 0, bytes: 0 };
  private uploadedBytesTotal = 0;
  private failuresTotal = 0;
  private droppedFilesTotal = 0;
  private lastSuccessAt: string | null = null;
  private lastError: { time: string; text: string } | null = null;
  /** Consecutive failed attempts; the wait doubles with each. */
  private failures = 0;
  /** monotonicMs() before which no attempt starts (monotonic: a clock jump stretches nothing). */
  private nextAt = 0;
  private nextAttemptWall: number | null = null;
  /** The files under way, each with the controller that abandons it (a reload's new target, the stop). */
  private readonly shipping = new Map<string, AbortController>();
  private workers = 0;
  private stopped = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private wake: NodeJS.Timeout | undefined;
  private youngTimer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;

  constructor(private readonly deps: OutboxDeps) {
    this.config = deps.config.outbox!;
    this.baseDir = deps.config.baseDir;
    this.baseReal = realpathSync(this.baseDir);
    this.journal = new Journal(deps.journalFile, deps.log);
    this.limit = new RateLimit(this.config.maxBytesPerSecond);
    this.target = makeTarget(this.config, outboxSecret(this.config), deps.config.deviceId);
  }

  start(): void {
    this.journal.load();
    onFileCompleted((abs) => this.notify(abs));
    void this.scan();
    this.timers.push(setInterval(() => void this.scan(), SCAN_MS).unref());
    // Set-aside files get another chance once a day (and at POST retry).
    this.timers.push(setInterval(() => this.retryFailed(), DAY_MS).unref());
  }

  /** A reload: a changed target abandons the upload under way; its file ships to the new target. */
  configure(config: Config): void {
    const next = config.outbox!;
    const targetChanged = JSON.stringify(next.target) !== JSON.stringify(this.config.target);
    const pathsChanged = JSON.stringify(next.paths) !== JSON.stringify(this.config.paths);
    const before = this.target;
    this.target = makeTarget(next, outboxSecret(next), config.deviceId); // the secret re-read (SIGHUP)
    this.config = next;
    this.limit.bytesPerSecond = next.maxBytesPerSecond;
    if (targetChanged) {
      for (const ac of this.shipping.values()) ac.abort(new Error('the target changed'));
      // The old store's multipart uploads are let go there: the new one starts its own.
      for (const rel of this.journal.multipartPaths()) this.abandonUpload(rel, before);
      this.failures = 0;
      this.nextAt = 0;
      this.nextAttemptWall = null;
    }
    // New directories are looked through now; with the same ones, the queue and the minute's scan hold.
    if (pathsChanged) void this.scan();
  }

  stop(): void {
    this.stopped = true;
    onFileCompleted(undefined);
    for (const t of this.timers) clearInterval(t);
    clearTimeout(this.wake);
    clearTimeout(this.youngTimer);
    for (const ac of this.shipping.values()) ac.abort(new Error('the agent is stopping'));
  }

  /** The path relative to baseDir of a file under outbox.paths, else undefined. */
  private relOf(abs: string): string | undefined {
    let inBase: string | undefined;
    if (isWithin(this.baseDir, abs)) inBase = abs;
    else if (isWithin(this.baseReal, abs)) inBase = this.baseDir + abs.slice(this.baseReal.length);
    if (inBase === undefined || !this.config.paths.some((p) => isWithin(p, inBase))) return undefined;
    return inBase.slice(this.baseDir.length + 1);
  }

  /** A file that is gone: no longer pending, and its multipart upload, if any, let go. */
  private gone(rel: string): void {
    this.pending.delete(rel);
    this.abandonUpload(rel);
  }

  /** Drops the journal's multipart upload of a file and lets the store free its parts (in the background). */
  private abandonUpload(rel: string, target = this.target): void {
    const state = this.journal.multipartOf(rel);
    if (!state) return;
    this.journal.setMultipart(rel, undefined);
    void target.abandon?.(state);
  }

  /** Whether a path, its links followed, is inside baseDir's real path (a gone path is not). */
  private async inside(abs: string): Promise<boolean> {
    const real = await realpath(abs).catch(() => undefined);
    return real !== undefined && isWithin(this.baseReal, real);
  }

  /** A file (or a directory moved in) complete at its final name: queued now. */
  private notify(abs: string): void {
    const rel = this.relOf(abs);
    if (rel === undefined || !shipsByName(rel)) return;
    stat(abs).then(
      (st) => {
        if (st.isDirectory())
          return walk(
            abs,
            (a) => this.relOf(a) ?? '.',
            (a, r, s) => this.found(a, r, s, true),
          );
        if (st.isFile()) this.found(abs, rel, st, true);
      },
      () => {}, // gone already: nothing to ship
    );
  }

  private found(abs: string, rel: string, st: Stats, complete: boolean): void {
    const stamp = stampOf(st);
    if (this.journal.isUploaded(rel, stamp)) return void this.young.delete(rel);
    const failed = this.failed.get(rel);
    if (failed) {
      if (failed.stamp && sameStamp(failed.stamp, stamp)) return void this.young.delete(rel);
      this.failed.delete(rel); // changed since it failed: tried afresh
    }
    if (!complete && Date.now() - st.mtimeMs < SETTLE_MS) {
      const seen = this.young.get(rel);
      const now = monotonicMs();
      const unchanged = seen !== undefined && sameStamp(seen.stamp, stamp);
      if (!unchanged || now - seen.since < SETTLE_MS) {
        if (!unchanged) this.young.set(rel, { abs, stamp, since: now });
        this.youngTimer ??= setTimeout(() => this.checkYoung(), YOUNG_CHECK_MS).unref();
        return;
      }
    }
    this.young.delete(rel);
    this.pending.set(rel, stamp, this.shipping.has(rel));
    this.kick();
  }

  private checkYoung(): void {
    this.youngTimer = undefined;
    for (const [rel, { abs }] of this.young) {
      stat(abs).then(
        (st) => (st.isFile() ? this.found(abs, rel, st, false) : this.young.delete(rel)),
        () => this.young.delete(rel), // gone: nothing to ship
      );
    }
  }

  /** At start and every minute: files other programs wrote, complete once unchanged for SETTLE_MS. */
  scan(): Promise<void> {
    this.scanning ??= (async () => {
      const seen = new Set<string>();
      let files = 0;
      for (const dir of this.config.paths) {
        if (!(await this.inside(dir))) {
          this.deps.log.warn(`outbox: ${dir} leads outside baseDir through a link: not shipped`);
          continue;
        }
        await walk(
          dir,
          (a) => this.relOf(a) ?? '.',
          (abs, rel, st) => {
            files++;
            if (this.journal.has(rel) || this.journal.multipartOf(rel)) seen.add(rel); // only the journal's entries are looked up in it
            this.found(abs, rel, st, false);
          },
        );
      }
      if (files >= SETTLE_AFTER_FILES) settleNow();
      // Verified entries of files that are gone are dropped (written with the next change).
      for (const rel of this.journal.uploadedPaths()) if (!seen.has(rel)) this.journal.forget(rel);
      // Multipart uploads of files that are gone: let go (not one under way: its file is there).
      for (const rel of this.journal.multipartPaths()) if (!seen.has(rel) && !this.shipping.has(rel)) this.abandonUpload(rel);
    })().finally(() => {
      this.scanning = undefined;
    });
    return this.scanning;
  }

  /** POST retry: the next attempt starts now, set-aside files included. */
  retry(): void {
    this.retryFailed();
    this.nextAt = 0;
    this.nextAttemptWall = null;
    clearTimeout(this.wake);
    this.wake = undefined;
    this.kick();
  }

  private retryFailed(): void {
    for (const [rel, f] of this.failed) {
      this.failed.delete(rel);
      stat(f.abs).then(
        (st) => st.isFile() && this.found(f.abs, rel, st, true),
        () => {},
      );
    }
  }

  private kick(): void {
    if (this.stopped) return;
    const wait = this.nextAt - monotonicMs();
    if (wait > 0) {
      // Armed anew: the wait may have become shorter (a success reset it, a failure set it again).
      clearTimeout(this.wake);
      this.wake = setTimeout(() => {
        this.wake = undefined;
        this.kick();
      }, wait).unref();
      return;
    }
    const want = Math.min(TRANSFERS, this.shipping.size + this.pending.waiting);
    while (this.workers < want) {
      this.workers++;
      this.work()
        .catch((err: unknown) => this.deps.log.error(`outbox: ${String((err as Error)?.stack ?? err)}`))
        .finally(() => {
          this.workers--;
          if (!this.stopped && this.pending.waiting > 0) this.kick();
        });
    }
  }

  /** A pending file's path: under baseDir (it may have been found under the real path of it). */
  private absOf(rel: string): string {
    return joinName(this.baseDir, rel);
  }

  /** One worker: ships the oldest file not under way, then the next, until none is left or the target fails. */
  private async work(): Promise<void> {
    while (!this.stopped && this.nextAt <= monotonicMs()) {
      const next = this.pending.take(); // the oldest file not under way
      if (!next) return;
      const ac = new AbortController();
      this.shipping.set(next[0], ac); // before any await: no other worker takes it
      let ok: boolean;
      try {
        ok = await this.shipOne(next[0], next[1], ac);
      } finally {
        this.shipping.delete(next[0]);
        this.pending.giveBack(next[0]); // still pending (a reload, the stop, queued again meanwhile): waits again
      }
      if (!ok) return;
    }
  }

  /** Ships one file; false when the target failed (the backoff then holds every file). */
  private async shipOne(rel: string, queued: Stamp, ac: AbortController): Promise<boolean> {
    const abs = this.absOf(rel);
    let st: Stats;
    try {
      st = await stat(abs);
      if (!st.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOENT' });
    } catch {
      this.gone(rel); // deleted, moved away: a move in is its own notification
      return true;
    }
    const stamp = stampOf(st);
    if (!sameStamp(stamp, queued)) {
      // Changed since it was queued: shipped once it settles.
      this.pending.delete(rel);
      this.found(abs, rel, st, false);
      return true;
    }
    if (!(await this.inside(abs))) {
      // A link on the way (a path of outbox.paths, or a directory moved in) leads out of the base.
      this.setAside(rel, abs, queued, 'the path leads outside baseDir through a link');
      return true;
    }
    const readable = await this.readable(abs);
    if (readable !== undefined) {
      if (readable !== 'ENOENT') this.setAside(rel, abs, queued, `cannot read the file: ${readable}`);
      else this.gone(rel);
      return true;
    }
    let digests: Promise<Digests> | undefined;
    const job: Job = {
      rel,
      abs,
      size: stamp.size,
      mtimeMs: stamp.mtimeMs,
      multipart: this.journal.multipartOf(rel),
      saveMultipart: (state) => this.journal.setMultipart(rel, state),
      digests: () => (digests ??= digestRange({ file: abs, start: 0, end: stamp.size })),
      signal: ac.signal,
      limit: this.limit,
      onBytes: () => {},
    };
    let key: string;
    try {
      key = await this.target.ship(job);
    } catch (err) {
      if (ac.signal.aborted) return true; // a reload or the stop: the file stays pending
      const code = fileError(err);
      if (code === 'ENOENT') {
        this.gone(rel);
        return true;
      }
      if (code !== undefined) {
        this.setAside(rel, abs, queued, `cannot read the file: ${errnoName(err)}`);
        return true;
      }
      this.fail(rel, stamp.size, err);
      return false;
    }
    // Changed while it shipped: the store holds an older version; this one ships again.
    const after = await stat(abs).catch(() => undefined);
    if (after && !sameStamp(stampOf(after), stamp)) {
      this.pending.delete(rel);
      this.found(abs, rel, after, false);
      return true;
    }
    this.journal.markUploaded(rel, stamp); // durable before it is counted anywhere
    this.pending.delete(rel);
    this.failures = 0; // a success resets the wait: the files held by it go now
    this.nextAt = 0;
    this.nextAttemptWall = null;
    this.kick();
    this.uploaded.files++;
    this.uploaded.bytes += stamp.size;
    this.uploadedBytesTotal += stamp.size;
    this.lastSuccessAt = isoTime(Date.now());
    this.deps.publish('outbox', { path: rel, outcome: 'uploaded', bytes: stamp.size });
    this.deps.audit.record({
      event: 'outbox.upload',
      outcome: 'ok',
      user: null,
      credential: 'agent',
      client: 'local',
      path: rel,
      key,
      bytes: stamp.size,
    });
    if (this.config.deleteAfterUpload && after) await this.deleteUploaded(rel, abs, stamp.size);
    return true;
  }

  private async deleteUploaded(rel: string, abs: string, bytes: number): Promise<void> {
    try {
      await unlink(abs);
    } catch (err) {
      this.deps.log.warn(`outbox: could not delete ${rel} after its upload: ${errnoName(err)}`);
      return;
    }
    this.journal.forget(rel);
    auditDeleted(this.deps.audit, rel, bytes, 'uploaded');
  }

  /** undefined when the file can be read, else its errno name. */
  private async readable(abs: string): Promise<string | undefined> {
    try {
      // One byte, synchronously: an open and a read of a file just stat'ed cost microseconds.
      const fd = openSync(abs, 'r');
      try {
        readSync(fd, Buffer.alloc(1), 0, 1, 0);
      } finally {
        closeSync(fd);
      }
      return undefined;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code ?? errnoName(err);
    }
  }

  private setAside(rel: string, abs: string, stamp: Stamp, error: string): void {
    this.pending.delete(rel);
    this.failed.set(rel, { abs, stamp, error, since: isoTime(Date.now()) });
    this.failuresTotal++;
    this.deps.log.warn(`outbox: ${rel} set aside: ${error}`);
    this.deps.publish('outbox', { path: rel, outcome: 'failed', bytes: stamp.size, error });
  }

  private fail(rel: string, bytes: number, err: unknown): void {
    const text = err instanceof Error ? err.message : String(err);
    this.failuresTotal++;
    // The target has one wait: transfers failing while it already runs (those under way beside
    // the first to fail) do not double it again.
    let wait = this.nextAt - monotonicMs();
    if (wait <= 0) {
      this.failures++;
      const cap = this.config.maxBackoffSeconds * 1000;
      const base = Math.min(FIRST_BACKOFF_MS * 2 ** Math.min(this.failures - 1, 30), cap);
      wait = base * (0.8 + 0.4 * Math.random());
      this.nextAt = monotonicMs() + wait;
      this.nextAttemptWall = Date.now() + wait;
    }
    this.lastError = { time: isoTime(Date.now()), text };
    this.deps.log.warn(`outbox: ${rel}: ${text}; next attempt in ${(wait / 1000).toFixed(1)} s`);
    this.deps.publish('outbox', { path: rel, outcome: 'failed', bytes, error: text });
    this.kick(); // arms the wake-up
  }

  /**
   * Free space under `dir` below `minFree` (docs/outbox.md, "Retention"): deletes uploaded files
   * under outbox.paths on that file system, oldest first, until it is `minFree` again; never a
   * file whose present version is not verified in the store. Audited `delete`, reason "disk".
   * Synchronous (a statfs and a few unlinks). Returns how many it deleted.
   */
  reclaim(minFree: number, dir: string): number {
    if (freeBytes(dir) >= minFree) return 0;
    const dev = statSync(dir).dev;
    const uploaded: [string, Stamp][] = [];
    for (const rel of this.journal.uploadedPaths()) {
      const stamp = this.journal.stampOf(rel);
      if (stamp && !this.pending.has(rel)) uploaded.push([rel, stamp]);
    }
    uploaded.sort(([a, x], [b, y]) => x.mtimeMs - y.mtimeMs || (a < b ? -1 : 1));
    let deleted = 0;
    for (const [rel, stamp] of uploaded) {
      if (freeBytes(dir) >= minFree) break;
      const abs = joinName(this.baseDir, rel);
      if (this.relOf(abs) === undefined) continue; // outbox.paths changed: not the outbox's any more
      let st: Stats;
      try {
        st = lstatSync(abs);
      } catch {
        continue; // gone already
      }
      // Changed since its upload (pending again), or on another file system (deleting it frees nothing here).
      if (!st.isFile() || !sameStamp(stampOf(st), stamp) || st.dev !== dev) continue;
      try {
        unlinkSync(abs);
      } catch (err) {
        this.deps.log.warn(`outbox: could not delete ${rel} for space: ${errnoName(err)}`);
        continue;
      }
      this.journal.forget(rel);
      deleted++;
      auditDeleted(this.deps.audit, rel, stamp.size, 'disk', true);
    }
    if (deleted > 0) this.journal.write();
    return deleted;
  }

  /** Has this file (a path relative to baseDir) a verified upload? null outside outbox.paths. */
  uploadedOf(abs: string): boolean | null {
    const rel = this.relOf(abs);
    if (rel === undefined) return null;
    if (!this.journal.has(rel) || this.pending.has(rel)) return false;
    // The version on disk, not an earlier one: a file changed after its upload is not uploaded.
    let st: Stats;
    try {
      st = statSync(abs);
    } catch {
      return false;
    }
    return this.journal.isUploaded(rel, stampOf(st));
  }

  /** Retention and the disk guard: a file they deleted. Counted when it was not uploaded. */
  deleted(abs: string, reason: 'retention' | 'disk'): boolean | null {
    const rel = this.relOf(abs);
    // The file is gone: its journal entry says (retention chose it by uploadedOf, the version on disk).
    const uploaded = rel === undefined ? null : this.journal.has(rel) && !this.pending.has(rel);
    if (rel !== undefined) {
      this.gone(rel);
      this.young.delete(rel);
      this.journal.forget(rel);
    }
    if (uploaded === false && reason === 'retention') this.droppedFilesTotal++;
    return uploaded;
  }

  /** The pending files' bytes and the oldest one's modification time (undefined when none). */
  private pendingSums(): { bytes: number; oldest: number | undefined } {
    // The oldest is the oldest waiting or one of the (at most TRANSFERS) under way.
    let oldest = this.pending.oldestWaiting();
    for (const rel of this.shipping.keys()) {
      const m = this.pending.get(rel)?.mtimeMs;
      if (m !== undefined && (oldest === undefined || m < oldest)) oldest = m;
    }
    return { bytes: this.pending.bytes, oldest };
  }

  figures(): OutboxFigures {
    const { bytes, oldest } = this.pendingSums();
    return {
      pendingFiles: this.pending.size,
      pendingBytes: bytes,
      oldestPendingAgeSeconds: oldest === undefined ? 0 : Math.max(0, (Date.now() - oldest) / 1000),
      uploadedBytesTotal: this.uploadedBytesTotal,
      failuresTotal: this.failuresTotal,
      droppedFilesTotal: this.droppedFilesTotal,
    };
  }

  status(): object {
    const t = this.config.target;
    const { bytes, oldest } = this.pendingSums();
    const waiting = this.nextAttemptWall !== null && this.nextAt > monotonicMs();
    const state = this.pending.size === 0 ? 'idle' : this.shipping.size > 0 ? 'uploading' : waiting ? 'waiting' : 'uploading';
    return {
      enabled: true,
      target: t.type === 's3' ? { type: 's3', endpoint: t.endpoint, bucket: t.bucket } : { type: t.type, url: t.url },
      state,
      pending: { files: this.pending.size, bytes },
      oldestPendingAt: oldest === undefined ? null : isoTime(oldest),
      failed: [...this.failed].map(([path, f]) => ({ path, error: f.error, since: f.since })),
      uploaded: { ...this.uploaded },
      lastSuccessAt: this.lastSuccessAt,
      lastError: this.lastError,
      nextAttemptAt: waiting ? isoTime(this.nextAttemptWall!) : null,
    };
  }
}
