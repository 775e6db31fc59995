// Every running capture, one per device: the recorder, the live streams and the level
// meter attach to the device's capture, which is started on the first attach (at the
// format that consumer asks) and stopped when the last consumer leaves.
import type { PcmFormat, RecorderName } from './argv.ts';
import { Capture, type Consumer } from './capture.ts';

export interface Level {
  device: string;
  peakDbfs: number;
  rmsDbfs: number;
}

export class Captures {
  private readonly running = new Map<string, Capture>();
  private readonly levelListeners = new Set<(level: Level) => void>();
  private closed = false;

  constructor(private recorder: RecorderName) {}

  /** A config reload: captures started from now on use this program. */
  configure(recorder: RecorderName): void {
    this.recorder = recorder;
  }

  /** The device's running capture, if any. */
  get(device: string): Capture | undefined {
    return this.running.get(device);
  }

  /**
   * Attaches `consumer` to the device's capture, starting one at `format` when none runs
   * (a running one keeps its own format: the consumer converts if it must). Resolves
   * once sound flows; rejects with CaptureFailed when the device cannot be opened.
   */
  async attach(device: string, format: PcmFormat, consumer: Consumer): Promise<Capture> {
    if (this.closed) throw new Error('the agent is shutting down');
    let capture = this.running.get(device);
    // The last consumer just left: the device is free once that program has exited.
    if (capture?.stopping) await capture.exited;
    if (this.closed) throw new Error('the agent is shutting down');
    capture = this.running.get(device);
    if (!capture || capture.ended || capture.stopping) {
      const started: Capture = new Capture(
        this.recorder,
        device,
        format,
        ({ peakDbfs, rmsDbfs }) => this.level({ device, peakDbfs, rmsDbfs }),
        () => {
          if (this.running.get(device) === started) this.running.delete(device);
        },
      );
      this.running.set(device, started);
      capture = started;
    }
    capture.attach(consumer);
    try {
      await capture.opened;
    } catch (err) {
      capture.detach(consumer);
      throw err;
    }
    return capture;
  }

  /** Calls `listener` with each running capture's level, every LEVEL_EVERY_MS; returns the unsubscribe. */
  onLevel(listener: (level: Level) => void): () => void {
    this.levelListeners.add(listener);
    return () => this.levelListeners.delete(listener);
  }

  private level(level: Level): void {
    for (const l of this.levelListeners) l(level);
  }

  get size(): number {
    return this.running.size;
  }

  /** Shutdown: every capture ends (their consumers hear end(null)); resolves when the programs have exited. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.running.values()];
    for (const c of all) c.stop();
    await Promise.all(all.map((c) => c.exited));
  }
}
