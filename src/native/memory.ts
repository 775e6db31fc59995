// Memory a burst leaves behind goes back to the kernel. An upload's request body arrives
// as Node's 64 KiB chunks, each a malloc'd block that V8 frees only at its next garbage
// collection (which external memory triggers every ~64 MB); the freed blocks stay in
// glibc's heap, between live ones, and RSS kept 60-125 MB more after 8 concurrent uploads
// (docs/performance.md). malloc_trim(0) returns every free page of the heaps. It runs
// once things are quiet: a second after the last upload (or login) ended, with none
// running. The allocator's thresholds are fixed when the addon loads (src/native/addon.c).
import { nativeAddon } from './addon.ts';

const QUIET_MS = 1000;
let active = 0;
let timer: NodeJS.Timeout | undefined;

function trimNow(): void {
  timer = undefined;
  if (active > 0) return;
  const addon = nativeAddon();
  if (!(addon instanceof Error)) addon.trim();
}

/** Loads the addon (which fixes the allocator's thresholds) before a large allocation. */
export function tuneAllocator(): void {
  nativeAddon();
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
    if (timer) clearTimeout(timer);
    timer = setTimeout(trimNow, QUIET_MS);
    timer.unref();
  };
}
