// A wall clock the test sets for one agent (or CLI) process: libfaketime (Debian package
// `libfaketime`) preloaded, its time read from a file on every call, so a test can jump
// the clock of a running agent. The monotonic clock stays real
// (FAKETIME_DONT_FAKE_MONOTONIC): what the agent must count on is left alone.
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDir } from './agent.ts';

const LIBRARY = `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/faketime/libfaketime.so.1`;

export interface FakeClock {
  /** Environment for the process whose wall clock this is. */
  env: Record<string, string>;
  /**
   * Sets the clock: `@2001-01-01 00:00:00` (absolute, running from there), `-2d`, `+1h`
   * (an offset from the real time), as faketime(1) takes them.
   */
  set(spec: string): void;
  cleanup(): void;
}

export function fakeClock(spec: string): FakeClock {
  if (!existsSync(LIBRARY)) throw new Error(`${LIBRARY} is missing: apt-get install libfaketime`);
  const dir = makeDir('da-clock-');
  const file = join(dir, 'faketime');
  writeFileSync(file, spec);
  return {
    env: {
      LD_PRELOAD: LIBRARY,
      FAKETIME_TIMESTAMP_FILE: file,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    },
    set(next: string) {
      // Written whole at once: a reader sees the old spec or the new one.
      writeFileSync(`${file}.new`, next);
      renameSync(`${file}.new`, file);
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Both clocks of a process running `factor` times as fast as real time (timers too:
 * libfaketime scales the waits), for what happens every few minutes: a minute of the
 * agent's passes in 1/factor of a real one.
 */
export function fastClock(factor: number): Record<string, string> {
  if (!existsSync(LIBRARY)) throw new Error(`${LIBRARY} is missing: apt-get install libfaketime`);
  return { LD_PRELOAD: LIBRARY, FAKETIME: `+0 x${factor}` };
}
