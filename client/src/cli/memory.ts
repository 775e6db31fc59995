// Flat memory for long transfers. The buffers a transfer reads and writes live outside V8's
// heap; they die young, but a young-generation collection comes only when the JS heap's
// nursery fills, which a transfer hardly allocates, so they pile up to V8's external-memory
// limit (some 60 MB) and then cost a full collection. dagent asks for a young-generation
// collection (a scavenge: its cost is the live young objects, a few) every 1 MB moved.
// Measured, 200 MB over HTTP under Node 24: get peak RSS 140 -> 76 MB and CPU 720 -> 600 ms,
// put 120 -> 72 MB and 380 -> 320 ms; a full collection instead cost 20-60 ms each on a
// busy host (docs/client.md). The library does not do this: a program that embeds it owns
// its process's collector.
import { v8, vm } from '../builtins.ts';

const STEP = 1024 * 1024;

type Gc = (opts?: { type?: 'minor' | 'major' }) => void;
let gc: Gc | null | undefined;

function collector(): Gc | null {
  if (gc === undefined) {
    try {
      v8().setFlagsFromString('--expose-gc');
      gc = vm().runInNewContext('gc') as Gc;
    } catch {
      gc = null; // not offered by this runtime: memory then follows V8's own schedule
    }
  }
  return gc;
}

/** A progress callback that collects young garbage every 1 MB of a transfer. */
export function collectWhileTransferring(): (p: { bytes: number }) => void {
  let next = STEP;
  return ({ bytes }) => {
    if (bytes < next) return;
    next = bytes + STEP;
    collector()?.({ type: 'minor' });
  };
}
