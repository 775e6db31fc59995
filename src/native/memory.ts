// Memory an upload burst takes goes back. An upload's request body arrives as Node's
// 64 KiB chunks, each a malloc'd block that V8 frees only at a garbage collection, and
// external memory starts one only every ~64 MB; the freed blocks then stay in glibc's
// heap, between live ones: RSS kept 60-125 MB more after 8 concurrent uploads
// (docs/performance.md). So each chunk is freed as soon as its bytes are written or copied
// (release, HeldChunk); where the runtime cannot, a young-generation collection every 2 MiB
// of body frees the chunks already let go. A second after the last upload ended (none
// running, the API not busy), a full collection that also shrinks V8's own heap, then
// malloc_trim(0) returns every free page of the heaps. The allocator's thresholds are
// fixed when the addon loads (src/native/addon.c).
import { busySince, requestsBegun } from '../util/give-way.ts';
import { nativeAddon } from './addon.ts';

const QUIET_MS = 1000;
/** Body bytes between two young-generation collections while uploads run. */
const COLLECT_EVERY = 2 * 1024 * 1024;
let active = 0;
let timer: NodeJS.Timeout | undefined;
let sinceCollect = 0;

type Collect = (options?: { type?: 'minor' | 'major'; flavor?: 'regular' | 'last-resort' }) => void;
let collectFn: Collect | null | undefined;

/**
 * V8's own collector, asked for: `--expose-gc` set at run time (not in the executable's
 * options, whose V8 flag hash the start-up code cache must match) and `gc` taken from a
 * context made after it. null where the runtime refuses.
 */
function collector(): Collect | null {
  if (collectFn === undefined) {
    try {
      process.getBuiltinModule('node:v8').setFlagsFromString('--expose-gc');
      const fn: unknown = process.getBuiltinModule('node:vm').runInNewContext('gc');
      collectFn = typeof fn === 'function' ? (fn as Collect) : null;
    } catch {
      collectFn = null;
    }
  }
  return collectFn;
}

let settles = 0;

function trimNow(): void {
  timer = undefined;
  if (active > 0) return;
  settles++;
  // What the burst left is garbage V8 has not collected yet: collect it, with V8's
  // "last resort" flavour, which also shrinks its young generation and gives back the
  // pages it pooled (a regular full collection left +3.7 to +4.9 MB anonymous after 8
  // uploads, this one none: docs/performance.md); then give glibc's free pages back.
  collector()?.({ type: 'major', flavor: 'last-resort' });
  const addon = nativeAddon();
  if (!(addon instanceof Error)) addon.trim();
}

/**
 * Counts request-body bytes that release() could not free; every 2 MiB a young-generation
 * collection frees the chunks already written (each a malloc'd 64 KiB block that V8 would
 * otherwise keep until ~64 MB of them piled up). About 1 ms each.
 */
export function bodyReceived(bytes: number): void {
  sinceCollect += bytes;
  if (sinceCollect < COLLECT_EVERY) return;
  sinceCollect = 0;
  collector()?.({ type: 'minor' });
}

/**
 * Seconds of sound stored between two settles. Each of a schedule's segments leaves its
 * encoder's process, pipes and streams behind, old enough to be promoted: garbage V8
 * collects only when its old generation reaches its limit. Measured with 10 s segments:
 * without settling RSS rose ~0.3 MB a minute; settled every 300 s it climbed ~2 MB between
 * settles, every 60 s it stayed within ~1 MB, for ~20 ms of CPU each (+0.34 ms a second of
 * sound at 60 s; the capture and encoders take ~10): every 120 s, +0.17 ms a second
 * (docs/schedule.md, "Figures").
 */
const SETTLE_EVERY_S = 120;
let sinceSettle = 0;

/** Counts seconds of sound a segment stored; every SETTLE_EVERY_S, the settle a burst gets. */
export function soundStored(seconds: number): void {
  sinceSettle += seconds;
  if (sinceSettle < SETTLE_EVERY_S) return;
  sinceSettle = 0;
  settleSoon();
}

type Transferable = ArrayBuffer & { transfer?: (length?: number) => ArrayBuffer };

/**
 * Frees a request-body chunk's memory now, once every consumer has written or copied what it keeps:
 * detaching its ArrayBuffer (`transfer(0)`) drops the malloc'd block at once, where V8
 * would free it only at its next collection. Only a buffer that alone owns its
 * ArrayBuffer (Node's per-chunk copy), never a slice of Node's shared pool. False where
 * it cannot (the caller counts the chunk for a young collection instead).
 */
export function release(chunk: Buffer): boolean {
  const ab = chunk.buffer as Transferable;
  if (chunk.byteOffset !== 0 || ab.byteLength !== chunk.length || chunk.length <= 4096 || !ab.transfer) return false;
  try {
    ab.transfer(0);
    return true;
  } catch {
    return false; // not detachable
  }
}

/**
 * A request-body chunk with the consumers still holding part of it (the 'data' handler
 * while the parser runs, then each temp file until it has written its slices): the last
 * to let go frees it (release), or counts it for a young collection where it cannot.
 */
export class HeldChunk {
  private holds = 1;
  constructor(readonly chunk: Buffer) {}
  hold(): void {
    this.holds++;
  }
  drop(): void {
    if (--this.holds === 0 && !release(this.chunk)) bodyReceived(this.chunk.length);
  }
}

/** Loads the addon (which fixes the allocator's thresholds) before a large allocation. */
export function tuneAllocator(): void {
  nativeAddon();
}

/** One of Node's tick objects, held for the process's life (holdTickMap). */
let tickHeld: object | undefined;

/**
 * Holds one of Node's tick objects for the process's life, so that their map lives too.
 * process.nextTick makes each tick an object literal with computed keys, alive only until
 * it runs. A collection that reduces memory (the settle's last-resort one above, and V8's
 * own memory reducer a few seconds after the agent goes quiet) keeps no map that no live
 * object has: between ticks the tick's map died, its literal's feedback went megamorphic,
 * and every nextTick after it built its object in V8's runtime, for the rest of the
 * process's life: 40 -> 355 ns a call, status 0.86 -> 0.70 x the plain Node server
 * (docs/performance.md, "Tick objects and collections that reduce memory"). Inside a
 * tick, async_hooks' executionAsyncResource() is that tick's object; no hook is
 * installed (a hook would turn on V8's promise hooks, +16 ns on every await for good).
 */
export function holdTickMap(): void {
  if (tickHeld) return;
  const { executionAsyncResource } = process.getBuiltinModule('node:async_hooks');
  process.nextTick(() => {
    tickHeld = executionAsyncResource();
  });
}

/** The tick object holdTickMap holds, once its tick has run (its test compares maps with it). */
export const tickObjectHeld = (): object | undefined => tickHeld;

/**
 * The settle once quiet: QUIET_MS from now, and put off again while the API is busy
 * (busySince, src/util/give-way.ts). The collection stops the thread for a few ms and V8's
 * code warms again after it: landed in the middle of a status load, that run answered
 * 45.5k req/s against ~59k in the runs after it (docs/performance.md).
 */
function settleLater(): void {
  if (timer) clearTimeout(timer);
  const mark = requestsBegun();
  timer = setTimeout(() => (busySince(mark, QUIET_MS) ? settleLater() : trimNow()), QUIET_MS);
  timer.unref();
}

/** How many settles have run (its test). */
export const settlesRun = (): number => settles;

/**
 * The start is over (listening, first samples taken): what it left for the collector goes
 * back now, as after a burst, unless an upload already runs.
 */
export function settleAfterStart(): void {
  if (active === 0 && !timer) trimNow();
}

/** A burst of another kind ended (a connection that queued requests closed): settle once quiet. */
export function settleSoon(): void {
  if (active > 0) return; // the last upload's end settles
  settleLater();
}

/** The settle now, not a second from now: after a burst known to be over (an outbox scan). */
export function settleNow(): void {
  if (active > 0) return; // the last upload's end settles
  if (timer) clearTimeout(timer);
  trimNow();
}

/** Marks the start of a burst of memory (an upload); call the returned function at its end. */
export function burstStarted(): () => void {
  tuneAllocator();
  active++;
  if (timer) {
    clearTimeout(timer);
    timer = undefined;
  }
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    active--;
    if (active > 0) return;
    settleLater();
  };
}
