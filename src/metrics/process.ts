// The standard process_* gauges (the names every Prometheus client library exports, so
// stock dashboards work), read from the kernel at scrape time.
import { readdirSync } from 'node:fs';
import { Sampled, type Registry } from './registry.ts';

/** Descriptors open now: the entries of /proc/self/fd, less the one reading it. */
function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length - 1;
  } catch {
    return undefined; // no /proc (not Linux): the series is left out, not faked
  }
}

export function processMetrics(registry: Registry): void {
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime());
  const add = (name: string, help: string, read: () => number | undefined, type: 'gauge' | 'counter' = 'gauge') =>
    registry.add(new Sampled(name, help, [], [], read, type));
  // libuv reads the resident set from /proc/self/stat; getrusage gives user and system CPU.
  add('process_resident_memory_bytes', 'Resident memory size in bytes', () => process.memoryUsage.rss());
  add(
    'process_cpu_seconds_total',
    'Total user and system CPU time spent in seconds',
    () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    },
    'counter',
  );
  add('process_open_fds', 'Number of open file descriptors', openFds);
  add('process_start_time_seconds', 'Start time of the process since unix epoch in seconds', () => startSeconds);
}
