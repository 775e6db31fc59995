// Runs a capture pipeline (one or two programs), tracks every child, stops it so the
// programs finalize their files, and reports how each one ended.
import { errnoName } from '../util/errno.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Stage } from './argv.ts';

export interface StageResult {
  program: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The spawn failure (ENOENT: not installed), if the program never ran. */
  spawnError: string | null;
  /** The tail of its stderr. */
  stderr: string;
}

const STDERR_TAIL = 4096;

export class Pipeline {
  readonly done: Promise<StageResult[]>;
  /** Resolves when the capture program first hands on sound (two-stage pipelines only). */
  readonly flowing: Promise<void>;
  private readonly children: ChildProcess[] = [];
  private readonly alive = new Set<ChildProcess>();
  private killTimer: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(stages: Stage[]) {
    const results: Promise<StageResult>[] = [];
    let prev: ChildProcess | undefined;
    let flowed: () => void = () => {};
    this.flowing = new Promise((resolve) => { flowed = resolve; });
    for (const [i, stage] of stages.entries()) {
      const last = i === stages.length - 1;
      const child = spawn(stage.program, stage.args, {
        stdio: [prev ? 'pipe' : 'ignore', last ? 'ignore' : 'pipe', 'pipe'],
      });
      // Through Node rather than fd passing: backpressure, and EOF reaches the encoder
      // as soon as the capture program closes its output.
      if (prev) {
        child.stdin!.on('error', () => { /* EPIPE: the encoder died; its exit says why */ });
        prev.stdout!.once('data', () => flowed());
        prev.stdout!.pipe(child.stdin!);
      }
      this.children.push(child);
      this.alive.add(child);
      results.push(this.track(stage.program, child));
      prev = child;
    }
    this.done = Promise.all(results).finally(() => clearTimeout(this.killTimer));
  }

  private track(program: string, child: ChildProcess): Promise<StageResult> {
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString('utf8')).slice(-STDERR_TAIL); });
    return new Promise((resolve) => {
      let spawnError: string | null = null;
      child.once('error', (err: NodeJS.ErrnoException) => {
        spawnError = errnoName(err);
        // A child that never started emits no 'close' on every Node version.
        if (child.pid === undefined) finish(null, null);
      });
      const finish = (code: number | null, signal: NodeJS.Signals | null) => {
        if (!this.alive.delete(child)) return;
        // A stage failing leaves the others blocked on a pipe: end them too.
        if (code !== 0 && !this.stopping) for (const other of this.alive) other.kill('SIGTERM');
        resolve({ program, code, signal, spawnError, stderr });
      };
      child.once('close', finish);
    });
  }

  get running(): boolean {
    return this.alive.size > 0;
  }

  /**
   * Asks the capture program to stop: sox and arecord close their output on SIGINT, and
   * an encoder stage then finalizes on EOF. Whatever still runs after `graceMs` is killed.
   */
  stop(graceMs: number): void {
    this.stopping = true;
    const first = this.children[0];
    if (first && this.alive.has(first)) first.kill('SIGINT');
    clearTimeout(this.killTimer);
    this.killTimer = setTimeout(() => this.kill(), graceMs);
  }

  /** Ends every stage at once: SIGKILL also ends a stopped (SIGSTOP) or stuck program. */
  kill(): void {
    this.stopping = true;
    for (const c of this.alive) c.kill('SIGKILL');
  }
}
