// Reading a process from /proc: open descriptors, children, memory.
import { readdirSync, readFileSync } from 'node:fs';

export function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Direct children of `pid` (all threads' children files). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
    if (text) out.push(...text.split(/\s+/).map(Number));
  }
  return out;
}

/** Polls `probe` until it gives a value (not undefined or false) and returns it; throws after `ms`. */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}

/** Waits until `check` holds or `ms` pass; returns whether it held. */
export async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Children the agent itself spawned: from the sources, tsx's esbuild service is one too, and not ours. */
export function agentChildren(pid: number): number[] {
  return childPids(pid).filter((c) => {
    try {
      return !readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('esbuild\0--service');
    } catch {
      return false; // exited meanwhile
    }
  });
}

/** A gate for a test to hold a server's answer: `open()` lets it go; `reached` resolves once `arrive()` was called. */
export function gate(): { arrive(): void; reached: Promise<void>; open(): void; opened: Promise<void> } {
  let arrive!: () => void;
  let open!: () => void;
  const reached = new Promise<void>((r) => {
    arrive = r;
  });
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { arrive, reached, open, opened };
}
