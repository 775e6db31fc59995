// The text of a failed system call, for every "could not ...: X" of the agent: one rule
// instead of `.code ?? err` spelled in each module.

/** Its errno name (ENOENT, EACCES) when it has one, else the error's message: for logs and config errors. */
export function errnoName(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  return err instanceof Error ? err.message : String(err);
}

/** "ENOENT: no such file or directory", without the path Node appends: for texts a client sees. */
export function errnoText(err: unknown): string {
  const e = err as NodeJS.ErrnoException | undefined;
  if (e && typeof e.code === 'string') {
    const m = /^[A-Z0-9_]+: ([^,]+)/.exec(e.message ?? '');
    return m ? `${e.code}: ${m[1]}` : e.code;
  }
  return err instanceof Error ? err.message : String(err);
}
