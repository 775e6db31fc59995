// Event streams beside the status route (BENCHMARKS.md's budget): authenticated status req/s
// with 20 open /api/v1/events streams, against the same agent with none, in interleaved
// pairs (the order alternates). Target: ≥ 0.95.
//   node bench/events.mjs [--pairs N] [--seconds N]   (needs dist/device-agent and wrk)
// bench/run.mjs adds eventsRows()'s row to BENCHMARKS.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wrk } from './clients.mjs';
import { procStats, startAgentBin } from './procs.mjs';
import { pairRatio, pairRatios, table } from './report.mjs';
import { BIN, numberArg, ranAlone } from './alone.mjs';

const STREAMS = 20;

/** `n` open event streams, each read (and counted) as a browser would; `tokens` take turns (one user holds at most 16). */
async function openStreams(url, tokens, n) {
  const { port } = new URL(url);
  const streams = await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise((resolve, reject) => {
          const token = tokens[i % tokens.length];
          const req = request(
            { host: '127.0.0.1', port, path: '/api/v1/events', agent: false, headers: { Authorization: `Bearer ${token}` } },
            (res) => {
              if (res.statusCode !== 200) reject(new Error(`events answered ${res.statusCode}`));
              const s = { req, events: 0 };
              res.on('data', (d) => {
                s.events += String(d).split('\n\n').length - 1;
              });
              resolve(s);
            },
          );
          req.on('error', reject);
          req.end();
        }),
    ),
  );
  return {
    streams,
    close: () => {
      for (const s of streams) s.req.destroy();
    },
  };
}

/** The bench row: status req/s with 20 streams open over the same run without. */
export async function eventsRows({ bin, pairs = 5, seconds = 5, log = () => {} }) {
  const dir = mkdtempSync(join(tmpdir(), 'da-bench-events-'));
  const agent = await startAgentBin(bin, join(dir, 'agent'));
  const status = `${agent.url}/api/v1/devicestatus/get`;
  const headers = { Authorization: `Bearer ${agent.token}` };
  const tokens = [agent.token, await agent.secondToken()];
  const runs = [[], []]; // req/s [with streams, without]
  const cpu = [[], []]; // the agent's CPU µs per request, likewise
  let events = 0;
  /** One wrk run: its req/s, and the agent's CPU time per request (all threads, schedstat). */
  const measure = async (secs, into) => {
    const before = procStats(agent.child.pid).cpuS;
    const { rps } = await wrk(status, headers, secs);
    if (into !== undefined) {
      runs[into].push(rps);
      cpu[into].push(((procStats(agent.child.pid).cpuS - before) * 1e6) / (rps * secs));
    }
  };
  const withStreams = async (secs, into) => {
    const open = await openStreams(agent.url, tokens, STREAMS);
    try {
      await measure(secs, into);
    } finally {
      events += open.streams.reduce((sum, s) => sum + s.events, 0);
      open.close();
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const without = (secs, into) => measure(secs, into);
  try {
    await withStreams(1); // warm-up of both kinds
    await without(1);
    for (let i = 0; i < pairs; i++) {
      log(`events: pair ${i + 1} of ${pairs}`);
      if (i % 2 === 0) {
        await withStreams(seconds, 0);
        await without(seconds, 1);
      } else {
        await without(seconds, 1);
        await withStreams(seconds, 0);
      }
    }
  } finally {
    await agent.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const ratio = pairRatio(runs[0], runs[1]);
  return {
    rows: [
      {
        figure: `authenticated device status with ${STREAMS} open event streams`,
        unit: 'req/s',
        agent: runs[0],
        baseline: runs[1],
        baselineName: 'same agent, no stream',
        target: '≥ 0.95 × no stream',
        ok: ratio >= 0.95,
        digits: 0,
      },
      {
        // CPU per request hardly moves when other processes take the cores; req/s does.
        figure: `its agent CPU per status request, ${STREAMS} streams open`,
        unit: 'µs',
        agent: cpu[0],
        baseline: cpu[1],
        baselineName: 'same agent, no stream',
        target: 'report',
        ok: true,
      },
    ],
    pairs: pairRatios(runs[0], runs[1]),
    cpuPairs: pairRatios(cpu[0], cpu[1]),
    events,
  };
}

if (ranAlone(import.meta.url)) {
  const r = await eventsRows({
    bin: BIN,
    pairs: numberArg('pairs', 5),
    seconds: numberArg('seconds', 5),
    log: (s) => console.error(s),
  });
  console.log(table(r.rows));
  const show = (xs) => xs.map((x) => x.toFixed(3)).join(' ');
  console.log(`\npairs (with / without): req/s ${show(r.pairs)}; CPU per request ${show(r.cpuPairs)}; events received: ${r.events}`);
}
