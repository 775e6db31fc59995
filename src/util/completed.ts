// Files that just became complete at their final name: a recording's rename, an upload's, a
// move's. The outbox (docs/outbox.md) listens, so that such a file is queued at once rather
// than at the next scan; with the outbox off nobody listens and a call costs one check.
type Listener = (absPath: string) => void;
let listener: Listener | undefined;

export function onFileCompleted(l: Listener | undefined): void {
  listener = l;
}

/** `absPath`: the real path of the file (or of a directory moved in, whose files are then complete). */
export function fileCompleted(absPath: string): void {
  listener?.(absPath);
}
