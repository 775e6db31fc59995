// Sun events of a date by the NOAA Solar Calculator's equations (docs/schedule.md, "Rules
// of time"): the spreadsheet's declination and equation of time (Meeus' low-precision
// terms), evaluated at the date's local noon, each event then refined once at its own
// time as the calculator's page does. docs/decisions.md says why not suncalc, with figures.

const RAD = Math.PI / 180;
const DAY_MS = 86_400_000;
const MIN_MS = 60_000;

export const SUN_EVENTS = ['sunrise', 'sunset', 'dawn', 'dusk', 'nauticalDawn', 'nauticalDusk', 'nightEnd', 'night', 'solarNoon'] as const;
export type SunEvent = (typeof SUN_EVENTS)[number];

/** Each event's sun elevation (degrees) and side of noon (-1 morning, +1 evening); solarNoon has none. */
const EVENTS: Record<Exclude<SunEvent, 'solarNoon'>, { elevation: number; side: -1 | 1 }> = {
  sunrise: { elevation: -0.833, side: -1 },
  sunset: { elevation: -0.833, side: 1 },
  dawn: { elevation: -6, side: -1 },
  dusk: { elevation: -6, side: 1 },
  nauticalDawn: { elevation: -12, side: -1 },
  nauticalDusk: { elevation: -12, side: 1 },
  nightEnd: { elevation: -18, side: -1 },
  night: { elevation: -18, side: 1 },
};

/** Declination (radians) and equation of time (minutes) at an instant (NOAA spreadsheet, columns G–V). */
export function solarPosition(ms: number): { declination: number; eqTimeMinutes: number } {
  const t = (ms / DAY_MS + 2440587.5 - 2451545) / 36525; // Julian century
  const l0 = (280.46646 + t * (36000.76983 + t * 0.0003032)) % 360;
  const m = 357.52911 + t * (35999.05029 - 0.0001537 * t);
  const e = 0.016708634 - t * (0.000042037 + 0.0000001267 * t);
  const c =
    Math.sin(m * RAD) * (1.914602 - t * (0.004817 + 0.000014 * t)) +
    Math.sin(2 * m * RAD) * (0.019993 - 0.000101 * t) +
    Math.sin(3 * m * RAD) * 0.000289;
  const omega = 125.04 - 1934.136 * t;
  const appLong = l0 + c - 0.00569 - 0.00478 * Math.sin(omega * RAD);
  const meanObliq = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60;
  const obliq = (meanObliq + 0.00256 * Math.cos(omega * RAD)) * RAD;
  const declination = Math.asin(Math.sin(obliq) * Math.sin(appLong * RAD));
  const y = Math.tan(obliq / 2) ** 2;
  const L = l0 * RAD;
  const M = m * RAD;
  const eq =
    y * Math.sin(2 * L) -
    2 * e * Math.sin(M) +
    4 * e * y * Math.sin(M) * Math.cos(2 * L) -
    0.5 * y * y * Math.sin(4 * L) -
    1.25 * e * e * Math.sin(2 * M);
  return { declination, eqTimeMinutes: (4 * eq) / RAD };
}

/** The solar noon (epoch ms) nearest to `near`, with the equation of time at `at`. */
function solarNoonNear(near: number, longitude: number, at: number): number {
  const minutes = 720 - 4 * longitude - solarPosition(at).eqTimeMinutes; // UTC minutes of the day
  const day = Math.floor(near / DAY_MS) * DAY_MS;
  let best = day + minutes * MIN_MS;
  for (const d of [day - DAY_MS, day + DAY_MS]) {
    const cand = d + minutes * MIN_MS;
    if (Math.abs(cand - near) < Math.abs(best - near)) best = cand;
  }
  return best;
}

/** Hour angle (minutes of time) at which the sun is at `elevation`, or null when it never is that day. */
function hourAngleMinutes(latitude: number, declination: number, elevation: number): number | null {
  const lat = latitude * RAD;
  const cosH = (Math.sin(elevation * RAD) - Math.sin(lat) * Math.sin(declination)) / (Math.cos(lat) * Math.cos(declination));
  if (!(cosH >= -1 && cosH <= 1)) return null;
  return (4 * Math.acos(cosH)) / RAD;
}

/**
 * The instant (epoch ms, whole seconds) of `event` in the solar day around `localNoon` (the
 * instant of a date's 12:00 in its zone), or null when the sun does not reach that
 * elevation that day (polar day or night).
 */
export function sunEventAt(event: SunEvent, localNoon: number, latitude: number, longitude: number): number | null {
  const noon = solarNoonNear(localNoon, longitude, localNoon);
  if (event === 'solarNoon') return Math.round(solarNoonNear(localNoon, longitude, noon) / 1000) * 1000;
  const { elevation, side } = EVENTS[event];
  const h0 = hourAngleMinutes(latitude, solarPosition(localNoon).declination, elevation);
  if (h0 === null) return null;
  // One refinement at the event's own time, as the calculator's calcSunriseSet does.
  const first = noon + side * h0 * MIN_MS;
  const h1 = hourAngleMinutes(latitude, solarPosition(first).declination, elevation);
  if (h1 === null) return null;
  const at = solarNoonNear(localNoon, longitude, first) + side * h1 * MIN_MS;
  return Math.round(at / 1000) * 1000;
}
