// The benchmark harness keeps working: a smoke run with small sizes produces every row.
// (Speed is never asserted here: `npm run bench` reports ratios for people to read.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers/agent.ts';
import { pairRatio, table } from '../bench/report.mjs';
import { staleBuild } from '../bench/stale.mjs';

const smoke = suite('bench smoke run');

smoke('npm run bench -- --smoke measures every figure against its baseline', () => {
  // 540 s, under the manifest's 600: on a loaded 2-core host the smoke run passed 300 s
  // before reaching the web, client, outbox, MQTT and schedule figures.
  const r = spawnSync(process.execPath, [join(ROOT, 'bench/run.mjs'), '--smoke'], { cwd: ROOT, encoding: 'utf8', timeout: 540_000 });
  assert.is(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const md = readFileSync(join(ROOT, 'test-artifacts/bench-smoke.md'), 'utf8');
  const rows = md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| figure'));
  // 19 figures with targets or reports, and the cold start's two (dd evicts the executable);
  // 14 HTTPS figures (bench/https.mjs), the web interface's four (bench/web.mjs), the
  // restart's three (bench/ops.mjs) and bench/metrics.mjs's three (status req/s on/off, a
  // scrape, RSS; its callgrind on/off is left to the full run: a third server under
  // callgrind passed the time limit), bench/tokens.mjs's four (status req/s and CPU with an API
  // token, idle RSS with 1,000 tokens, status with downloads audited; callgrind: full run),
  // bench/audio.mjs's four (recording CPU against sox alone, with 4 listeners, RSS with
  // listeners, status while recording; ~25 s), bench/memory.mjs's ten (login peak, the
  // pipelining attack's three, uploads plain and TLS and after, the 128 MB cgroup) and the
  // client's nine (bench/client.mjs: library and dagent transfers beside curl over HTTP and
  // HTTPS, dagent status), bench/outbox.mjs's nine (peak RSS shipping a file and RSS with
  // files pending, each as measured and less the code pages, throughput beside rclone copy
  // with its defaults and uploading as the agent must, CPU per GB beside rclone's, status
  // req/s while shipping, the sending rate during that load) and the MQTT link's five (bench/mqtt.mjs:
  // status commands per second and p99 beside an MQTT.js responder, idle RSS connected over
  // off, RSS after 1,000 commands as measured and less the code pages they faulted in) and the schedule's six (bench/schedule.mjs: CPU per
  // second of segmented recording beside sox alone, a manual recording beside it for
  // context, the samples of two duty-cycle periods, with a live stream and without, the
  // preview of a year cold and warm).
  assert.is(rows.length, 21 + 14 + 4 + 3 + 3 + 4 + 4 + 10 + 9 + 9 + 5 + 6, md);
  assert.ok(
    rows.some((r) => r.startsWith('| dagent get of 2 MB (HTTP; process start to exit)')),
    md,
  );
  assert.ok(
    rows.some((r) => r.startsWith('| navigation → login form painted')),
    md,
  );
  assert.is(rows.filter((r) => r.includes('(metrics off)')).length, 1, md);
  // Counted by callgrind, both servers: a status request is thousands of instructions.
  const counted = rows.find((r) => r.startsWith('| instructions per status request'));
  assert.ok(counted, md);
  const [agentK, baseK] = [counted.split('|')[2]!, counted.split('|')[3]!].map((c) => Number(/[\d.]+/.exec(c)![0]));
  assert.ok(agentK! > 5 && agentK! < 5000 && baseK! > 5 && baseK! < 5000, counted);
  assert.ok(
    rows.some((r) => r.startsWith('| exec → first answered request, cold start')),
    md,
  );
  assert.ok(
    rows.some((r) => r.startsWith('| CPU time to that first answer (all threads)')),
    md,
  );
  for (const row of rows) {
    const agent = row.split('|')[2]!;
    // A figure over idle may be below it (memory returned): a minus sign is a figure.
    assert.match(agent, /^\s*-?\d+(\.\d+)? \(/, `no figure in: ${row}`);
  }
  // The figures name the code they measured.
  assert.match(md, /dist\/device-agent \(code of [0-9a-f]{7,}( \+ uncommitted changes)?; Node v\d+/);
  for (const who of [
    '(nginx)',
    '(raw fsync sink)',
    '(fixed-JSON Node)',
    '(plain Node server)',
    '(same agent, no stream)',
    '(Node https)',
    '(nginx ssl, 1 worker)',
    '(metrics off)',
    '(login token)',
    '(audit.file off)',
  ])
    assert.ok(md.includes(who), who);
  const svg = readFileSync(join(ROOT, 'test-artifacts/bench-ratios.svg'), 'utf8');
  assert.match(svg, /^<svg [^>]+>/);
  assert.is((svg.match(/<rect /g) ?? []).length, 7); // the background and six ratio bars
});

smoke('a ratio is the median of the pair ratios, not the ratio of the medians', () => {
  // Pair 1 ran while the host was at half speed: both contenders slowed.
  assert.is(pairRatio([40, 85, 90], [50, 100, 120]), 0.8); // pairs 0.80, 0.85, 0.75 (medians: 0.85)
  assert.is(pairRatio([80, 40, 80, 79, 81], [100, 50, 100, 100, 100]), 0.8);
  // Unpaired (different counts): the ratio of the medians.
  assert.is(pairRatio([1, 2, 3], [4, 6]), 2 / 5);
});

smoke('a missed target reads "no", a missed aim "aim missed", a met one "yes"', () => {
  const row = (ok: boolean, aim?: boolean) => ({ figure: 'f', unit: 'u', agent: [1], target: 't', ok, ...(aim ? { aim } : {}) });
  const met = table([row(false), row(false, true), row(true, true), row(true)])
    .split('\n')
    .slice(2)
    .map((l) => l.split('|')[6]!.trim());
  assert.equal(met, ['**no**', '**aim missed**', 'yes', 'yes']);
});

smoke('the bench rebuilds an executable that is missing or older than any of its inputs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'da-stale-'));
  try {
    const bin = join(dir, 'dist/device-agent');
    const deep = join(dir, 'src/http/router.ts');
    mkdirSync(join(dir, 'src/http'), { recursive: true });
    mkdirSync(join(dir, 'dist'));
    for (const f of [deep, join(dir, 'build.mjs'), join(dir, 'package-lock.json')]) writeFileSync(f, '');
    const at = (f: string, s: number) => utimesSync(f, s, s);
    for (const f of [deep, join(dir, 'build.mjs'), join(dir, 'package-lock.json')]) at(f, 1_000);
    assert.match(staleBuild(dir, bin) ?? '', /is missing/);
    writeFileSync(bin, '');
    at(bin, 2_000);
    assert.is(staleBuild(dir, bin), undefined);
    // A source two folders down, changed after the build (as by `git stash pop`).
    at(deep, 3_000);
    assert.is(staleBuild(dir, bin), `${deep} is newer than ${bin}`);
    at(deep, 1_000);
    at(join(dir, 'package-lock.json'), 3_000);
    assert.match(staleBuild(dir, bin) ?? '', /package-lock\.json is newer than/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

smoke.run();
