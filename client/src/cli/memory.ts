// Flat memory for long transfers. The buffers a transfer reads and writes live outside V8's
// heap, and V8 collects them only once some 60 MB of them have piled up (its external-memory
// limit): a 1 GiB get over HTTPS peaked at 136 MB RSS under Node 24 (64 MB idle). dagent
// asks for a full collection every 1 MB transferred (its heap is small: no slower in the
// measurement), and the same get peaks at 80 MB (figures in docs/client.md). The library
// does not do this: a program that embeds it owns its process's collector.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const STEP = 1024 * 1024;

type Gc = (opts?: { type?: 'minor' | 'major' }) => void;
let gc: Gc | null | undefined;

function collector(): Gc | null {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as Gc;
    } catch {
      gc = null; // not offered by this runtime: memory then follows V8's own schedule
    }
  }
  return gc;
}

/** A progress callback that collects garbage every 1 MB of a transfer. */
export function collectWhileTransferring(): (p: { bytes: number }) => void {
  let next = STEP;
  return ({ bytes }) => {
    if (bytes < next) return;
    next = bytes + STEP;
    collector()?.();
  };
}
