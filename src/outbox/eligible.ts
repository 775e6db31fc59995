// Which names ship (docs/outbox.md, "What ships"): never a dot-name (of the file or of a
// directory on the way) and never a temporary name, whoever wrote it.
const TEMPORARY = /(\.tmp|\.part|\.partial|~)$/;

/** A path relative to baseDir, '/'-separated. */
export function shipsByName(rel: string): boolean {
  for (const segment of rel.split('/')) {
    if (segment === '' || segment.startsWith('.') || TEMPORARY.test(segment)) return false;
  }
  return true;
}
