// The outbox's pending files (docs/outbox.md, "What ships"): each file's path and stamp, and
// the ones not under way in a heap ordered oldest first (modification time, then the order
// they were queued in), so that taking the next file, counting those waiting and the pending
// bytes cost O(log n) or O(1) however many wait. Compact, as 10,000 files may wait through an
// outage: a slot per file in one Float64Array (size, modification time, inode, order) and a
// heap of slot numbers, besides the map from path to slot; no object per file.
import type { Stamp } from './journal.ts';

const FIELDS = 4; // size, mtimeMs, ino, seq
const NOWHERE = -1;

export class PendingQueue {
  private readonly slots = new Map<string, number>();
  private rels: (string | undefined)[] = [];
  private data = new Float64Array(64 * FIELDS);
  /** Each slot's index in `heap`, or NOWHERE while under way (taken). */
  private at = new Int32Array(64).fill(NOWHERE);
  private readonly heap: number[] = [];
  private readonly free: number[] = [];
  private seq = 0;
  private total = 0;

  /** Pending files, under way or not. */
  get size(): number {
    return this.slots.size;
  }

  /** Pending files not under way. */
  get waiting(): number {
    return this.heap.length;
  }

  /** The pending files' bytes. */
  get bytes(): number {
    return this.total;
  }

  has(rel: string): boolean {
    return this.slots.has(rel);
  }

  get(rel: string): Stamp | undefined {
    const s = this.slots.get(rel);
    if (s === undefined) return undefined;
    const o = s * FIELDS;
    return { size: this.data[o]!, mtimeMs: this.data[o + 1]!, ino: this.data[o + 2]! };
  }

  /**
   * Queues `rel` at this stamp: a file already pending keeps its place among equals (as a
   * Map keeps a key's), else it is queued last among them. `underWay`: it ships now; it
   * waits in the heap once given back (`giveBack`).
   */
  set(rel: string, stamp: Stamp, underWay: boolean): void {
    let s = this.slots.get(rel);
    if (s === undefined) {
      s = this.free.pop() ?? this.grow();
      // Its own copy of the path: a slice of a longer string keeps the whole of it alive.
      this.rels[s] = Buffer.from(rel).toString();
      this.slots.set(this.rels[s]!, s);
      this.data[s * FIELDS + 3] = this.seq++;
      this.at[s] = NOWHERE;
    } else this.total -= this.data[s * FIELDS]!;
    const o = s * FIELDS;
    this.data[o] = stamp.size;
    this.data[o + 1] = stamp.mtimeMs;
    this.data[o + 2] = stamp.ino;
    this.total += stamp.size;
    const i = this.at[s]!;
    if (i !== NOWHERE) {
      this.up(i);
      this.down(this.at[s]!);
    } else if (!underWay) this.push(s);
  }

  delete(rel: string): void {
    const s = this.slots.get(rel);
    if (s === undefined) return;
    if (this.at[s] !== NOWHERE) this.remove(this.at[s]!);
    this.total -= this.data[s * FIELDS]!;
    this.slots.delete(rel);
    this.rels[s] = undefined;
    this.free.push(s);
  }

  /** Takes the oldest file not under way (it is under way from now on); undefined when none waits. */
  take(): [string, Stamp] | undefined {
    if (this.heap.length === 0) return undefined;
    const s = this.heap[0]!;
    this.remove(0);
    const rel = this.rels[s]!;
    return [rel, this.get(rel)!];
  }

  /** A file no longer under way: waits again if still pending. */
  giveBack(rel: string): void {
    const s = this.slots.get(rel);
    if (s !== undefined && this.at[s] === NOWHERE) this.push(s);
  }

  /** The oldest modification time among the waiting files, undefined when none waits. */
  oldestWaiting(): number | undefined {
    return this.heap.length === 0 ? undefined : this.data[this.heap[0]! * FIELDS + 1];
  }

  private grow(): number {
    const s = this.rels.length;
    this.rels.push(undefined);
    if (s >= this.at.length) {
      const data = new Float64Array(this.data.length * 2);
      data.set(this.data);
      this.data = data;
      const at = new Int32Array(this.at.length * 2).fill(NOWHERE);
      at.set(this.at);
      this.at = at;
    }
    return s;
  }

  /** Slot a before slot b: older, or as old and queued first. */
  private before(a: number, b: number): boolean {
    const x = this.data[a * FIELDS + 1]!;
    const y = this.data[b * FIELDS + 1]!;
    return x < y || (x === y && this.data[a * FIELDS + 3]! < this.data[b * FIELDS + 3]!);
  }

  private place(i: number, s: number): void {
    this.heap[i] = s;
    this.at[s] = i;
  }

  private push(s: number): void {
    this.place(this.heap.length, s);
    this.up(this.heap.length - 1);
  }

  private remove(i: number): void {
    const s = this.heap[i]!;
    const last = this.heap.pop()!;
    this.at[s] = NOWHERE;
    if (i < this.heap.length) {
      this.place(i, last);
      this.up(i);
      this.down(this.at[last]!);
    }
  }

  private up(i: number): void {
    const s = this.heap[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(s, this.heap[p]!)) break;
      this.place(i, this.heap[p]!);
      i = p;
    }
    this.place(i, s);
  }

  private down(i: number): void {
    const s = this.heap[i]!;
    const n = this.heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const c = l + 1 < n && this.before(this.heap[l + 1]!, this.heap[l]!) ? l + 1 : l;
      if (!this.before(this.heap[c]!, s)) break;
      this.place(i, this.heap[c]!);
      i = c;
    }
    this.place(i, s);
  }
}
