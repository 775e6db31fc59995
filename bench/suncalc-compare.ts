// The figures behind docs/decisions.md, "Sun times: NOAA's equations, not suncalc": suncalc
// 2.x against src/schedule/sun.ts (NOAA's equations) on a grid of latitudes, longitudes and
// every day of 2024, and the CPU each takes per date. suncalc is not a dependency:
//   npm install --no-save suncalc@2 && npx tsx bench/suncalc-compare.ts
import { SUN_EVENTS, sunEventAt } from '../src/schedule/sun.ts';

const SunCalc = (await import('suncalc' as string)) as { getTimes(d: Date, lat: number, lon: number): Record<string, Date | null> };
const DAY = 86_400_000;
const bands: Record<string, number[]> = { '|lat| ≤ 45': [], '45 < |lat| ≤ 60': [], '60 < |lat| ≤ 66': [] };
let presence = 0;
let compared = 0;
const over: string[] = [];
for (let lat = -66; lat <= 66; lat += 3) {
  const band = Math.abs(lat) <= 45 ? '|lat| ≤ 45' : Math.abs(lat) <= 60 ? '45 < |lat| ≤ 60' : '60 < |lat| ≤ 66';
  for (const lon of [-170, -75, 0, 15, 140]) {
    for (let d = 0; d < 366; d++) {
      const noon = Date.UTC(2024, 0, 1, 12) + d * DAY - (lon / 15) * 3_600_000; // local mean noon
      const theirs = SunCalc.getTimes(new Date(noon), lat, lon);
      for (const event of SUN_EVENTS) {
        const ours = sunEventAt(event, noon, lat, lon);
        const t = theirs[event];
        const valid = t instanceof Date && !Number.isNaN(t.getTime());
        if ((ours === null) !== !valid) {
          presence++;
          continue;
        }
        if (ours === null || !valid) continue;
        const diff = Math.abs(ours - t.getTime()) / 1000;
        bands[band]!.push(diff);
        if (diff > 120) over.push(`${event} ${lat},${lon} day ${d}: ${diff.toFixed(0)} s`);
        compared++;
      }
    }
  }
}
console.log(`${over.length} differ by more than 2 minutes, e.g. ${over.slice(0, 6).join('; ')}`);
const pct = (xs: number[], p: number) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
console.log(`${compared} events compared; ${presence} that one finds and the other does not (edges of polar twilight)`);
for (const [band, xs] of Object.entries(bands)) {
  console.log(`${band}: median ${pct(xs, 0.5).toFixed(0)} s, p99 ${pct(xs, 0.99).toFixed(0)} s, max ${pct(xs, 1).toFixed(0)} s`);
}

const N = 20_000;
let sink = 0;
for (const [name, run] of [
  [
    'NOAA (src/schedule/sun.ts), 9 events',
    (noon: number) => {
      for (const e of SUN_EVENTS) sink += sunEventAt(e, noon, 52.2, 0.12) ?? 0;
    },
  ],
  ['suncalc getTimes, all events', (noon: number) => (sink += SunCalc.getTimes(new Date(noon), 52.2, 0.12).sunrise!.getTime())],
] as const) {
  for (let i = 0; i < N; i++) run(Date.UTC(2024, 0, 1, 12) + (i % 366) * DAY); // warm up
  const u = process.cpuUsage();
  for (let i = 0; i < N; i++) run(Date.UTC(2024, 0, 1, 12) + (i % 366) * DAY);
  const c = process.cpuUsage(u);
  console.log(`${name}: ${(((c.user + c.system) / N) * 1000).toFixed(0)} ns per date`);
}
if (sink === 0) console.log('');
