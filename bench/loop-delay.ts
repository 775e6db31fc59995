// Event-loop delay while the status sampler refreshes continuously (a sample every call).
// Usage: node --import tsx bench/loop-delay.ts SECONDS   (prints JSON {p50, p99, max, samples, idleP99})
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { StatusSampler } from '../src/status/sampler.ts';

const seconds = Number(process.argv[2] ?? 5);
const sampler = new StatusSampler({ baseDir: '/', recordingState: () => 'idle', maxAgeMs: 0 });
await sampler.json(); // static facts, read once
const ms = (ns: number) => Math.round(ns / 1e4) / 100;

/** Runs `work` in a loop for the given time and returns the loop delay it saw. */
async function measure(work: () => Promise<unknown>) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const end = Date.now() + seconds * 1000;
  let samples = 0;
  while (Date.now() < end) {
    await work();
    samples++;
    await new Promise((r) => setTimeout(r, 5));
  }
  h.disable();
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), samples };
}

// The same loop without the sampler: what the machine itself adds (scheduling, timers).
const idle = await measure(async () => {});
const sampling = await measure(async () => {
  await sampler.json();
});
console.log(JSON.stringify({ ...sampling, idleP99: idle.p99 }));
