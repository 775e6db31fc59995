// What a file poller compares (the users file, the TLS pair): a change of any of these is
// a change of the file; a file that cannot be stat'ed is stamped with its errno name, so
// its disappearing and reappearing are changes too.
import { stat, statSync, type Stats } from 'node:fs';
import { errnoName } from './errno.ts';

function stampOf(st: Stats): string {
  return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

/** The file's stamp now (synchronous: at load time). */
export function fileStamp(file: string): string {
  try {
    return stampOf(statSync(file));
  } catch (err) {
    return errnoName(err);
  }
}

/** The file's stamp, stat'ed on the thread pool (for the pollers). */
export function fileStampLater(file: string): Promise<string> {
  return new Promise((resolve) => stat(file, (err, st) => resolve(err ? errnoName(err) : stampOf(st))));
}

/**
 * Stats `file()` every `intervalMs` on the thread pool and hands each stamp to `onStamp`
 * (the caller compares it with what it loaded). One stat at a time: a stat still running
 * on a slow file system skips a turn; `idle()` true skips it too. A timer, not
 * fs.watchFile: that loads Node's watcher modules at every start (~0.9 ms) for the same
 * stat. The timer is unref'd; clearInterval() stops it.
 */
export function pollStamp(file: () => string, intervalMs: number, onStamp: (stamp: string) => void, idle = () => false): NodeJS.Timeout {
  let polling = false;
  const timer = setInterval(() => {
    if (polling || idle()) return;
    polling = true;
    void fileStampLater(file()).then((stamp) => {
      polling = false;
      onStamp(stamp);
    });
  }, intervalMs);
  timer.unref();
  return timer;
}
