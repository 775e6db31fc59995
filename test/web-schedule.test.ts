// The web interface's "Schedule" panel (docs/schedule.md, docs/api.md#web-interface), in
// Debian's Chromium against a real agent: an admin sees the stored state, fills the form
// field by field or pastes the document as JSON, previews a proposed document (the windows
// shown are exactly those POST /api/v1/schedule/preview answers for it, and nothing is
// stored), saves it (the agent stores it; a reload shows it), and a wrong document shows
// the agent's own 400 text, its field marked, while the stored one stays;
// the state follows the `schedule` event; a viewer, whose scopes do not include `audio`
// (every schedule route's), sees no panel and no save control. No request to another host,
// no console error, the CSP holds.
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, makeDir, startAgent, type TestAgent } from './helpers/agent.ts';
import { fencedContext, launchChromium, axeViolations } from './helpers/browser.ts';
import { bearer } from './helpers/http.ts';
import { SUN_EVENTS } from '../src/schedule/sun.ts';

const VIEWER = { username: 'vera', password: 'a password for the page', role: 'viewer' as const };
/** Statuses provoked on purpose (Chromium logs each as a console error). */
const PROVOKED = /^Failed to load resource: the server responded with a status of (400|403) /;

/** A proposed schedule: a sun event and a duty cycle across midnight, on the spring DST change in London. */
const DOC = {
  location: { latitude: 51.5, longitude: -0.13 },
  timeZone: 'Europe/London',
  recording: { fileExtension: 'flac', segmentSeconds: 60 },
  windows: [
    { start: 'sunrise-30m', end: 'sunrise+1h' },
    { start: '22:00', end: '02:00', days: ['sat', 'sun'], duty: { onSeconds: 600, offSeconds: 1200 } },
  ],
};
const FROM = '2026-03-27';
const DAYS = 4;

interface Ctx {
  agent: TestAgent;
  admin: string;
  browser: Browser;
  problems: string[];
  shots: string;
}
const web = suite<Ctx>('web interface: the schedule panel');

web.before(async (ctx) => {
  ctx.problems = [];
  ctx.shots = makeDir('da-web-schedule-screenshots-');
  console.log(`screenshots in ${ctx.shots}`);
  ctx.agent = await startAgent({
    users: [ADMIN, VIEWER],
    // A clock never synchronized: the stored schedule waits and records nothing during the test.
    config: { clock: { syncedFile: 'never-synchronized' } },
  });
  ctx.admin = await ctx.agent.login();
  ctx.browser = await launchChromium();
});

web.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.agent?.cleanup();
});

async function openAs(ctx: Ctx, user: { username: string; password: string }): Promise<Page> {
  const context = await fencedContext(ctx.browser, ctx.agent.url, ctx.problems, { viewport: { width: 1280, height: 1200 } }, PROVOKED);
  const page = await context.newPage();
  await page.goto(`${ctx.agent.url}/`);
  await page.getByRole('textbox', { name: 'Username' }).fill(user.username);
  await page.getByRole('textbox', { name: 'Password' }).fill(user.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Tokens', level: 2 }).waitFor();
  return page;
}

const api = async (ctx: Ctx, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${ctx.agent.url}${path}`, {
    method,
    headers: { ...bearer(ctx.admin), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
};

const panelOf = (page: Page) => page.locator('section', { has: page.getByRole('heading', { name: 'Schedule', level: 2 }) });

/** The preview as shown: each row's start and end (the API's own text, in `datetime`) and its count of "on" periods. */
const shownWindows = (panel: Locator) =>
  panel
    .getByRole('region', { name: 'Preview' })
    .locator('tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => {
        const times = [...tr.querySelectorAll('time')].map((t) => t.getAttribute('datetime'));
        return { start: times[0], end: times[1], periods: Number(tr.querySelector('[data-periods]')?.getAttribute('data-periods')) };
      }),
    );

/** The JSON box, its <details> opened first (closed, the box is out of the accessibility tree). */
async function jsonBox(panel: Locator): Promise<Locator> {
  const box = panel.getByRole('textbox', { name: 'Schedule document (JSON)' });
  if (!(await box.isVisible())) await panel.getByText('The document as JSON', { exact: true }).click();
  return box;
}

/** The JSON box's text replaced (fill, as a person pasting a document would). */
const edit = async (panel: Locator, doc: unknown) =>
  (await jsonBox(panel)).fill(typeof doc === 'string' ? doc : JSON.stringify(doc, null, 2));

/** A labelled control of the panel or of one of its groups, by its exact label. */
const control = (scope: Locator, label: string) => scope.getByLabel(label, { exact: true });

/**
 * Screenshots (`<name>.png`, `<name>-360.png`), no axe violation, and at 360 px the panel, its
 * form, editor and preview fit (no page-wide horizontal scroll); then the page reloaded at
 * full width: its panel, once it shows the stored schedule.
 */
async function checkedAndReloaded(ctx: Ctx, page: Page, name: string): Promise<Locator> {
  await page.screenshot({ path: join(ctx.shots, `${name}.png`), fullPage: true });
  assert.equal(await axeViolations(page), []);
  await page.setViewportSize({ width: 360, height: 800 });
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 360, 'no horizontal scroll at 360 px');
  await page.screenshot({ path: join(ctx.shots, `${name}-360.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 1200 });
  await page.reload();
  const panel = panelOf(page);
  await panel.getByText('The stored schedule', { exact: false }).waitFor();
  return panel;
}

web('an admin previews a proposed schedule (the windows the API computes for it), saves it, and a reload shows it stored', async (ctx) => {
  const page = await openAs(ctx, ADMIN);
  const panel = panelOf(page);
  await panel.getByText('No schedule is stored', { exact: false }).waitFor();
  await panel.getByText('off (no schedule)').waitFor();
  await edit(panel, DOC);
  // The form shows the document pasted as JSON.
  assert.is(await control(panel, 'Latitude').inputValue(), '51.5');
  assert.is(await control(panel, 'Length (s)').inputValue(), '60');
  assert.is(await control(panel.getByRole('group', { name: 'Window 2' }), 'On (s)').inputValue(), '600');
  assert.is(await control(panel.getByRole('group', { name: 'Window 2' }), 'Mon').isChecked(), false);
  await panel.getByLabel('Preview from').fill(FROM);
  await panel.getByRole('spinbutton', { name: 'Days' }).fill(String(DAYS));
  await panel.getByRole('button', { name: 'Preview', exact: true }).click();
  await panel.getByRole('region', { name: 'Preview' }).locator('tbody tr').first().waitFor();
  const theirs = await api(ctx, 'POST', '/api/v1/schedule/preview', { schedule: DOC, from: FROM, days: DAYS });
  assert.is(theirs.status, 200);
  const expected = theirs.body.windows.map((w: any) => ({ start: w.start, end: w.end, periods: w.on.length }));
  // Four sunrises and two night windows (Saturday's, across the change to summer time, and Sunday's).
  assert.is(expected.length, 6, JSON.stringify(theirs.body));
  assert.equal(await shownWindows(panel), expected);
  // The night windows' duty cycle is said, with the time it records.
  const night = panel.getByRole('row', { name: /2026-03-28 22:00:00/ });
  assert.match(await night.innerText(), /\d+ period\(s\), \d+ h \d+ min of 3 h 0 min/);
  // A preview stores nothing.
  assert.is((await api(ctx, 'GET', '/api/v1/schedule')).body.schedule, null);

  await panel.getByRole('button', { name: 'Save schedule' }).click();
  await panel.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  const stored = (await api(ctx, 'GET', '/api/v1/schedule')).body;
  assert.equal(
    stored.schedule.windows.map((w: any) => [w.start, w.end, w.duty ?? null]),
    DOC.windows.map((w: any) => [w.start, w.end, w.duty ?? null]),
  );
  assert.equal(stored.schedule.windows[1].days, ['sat', 'sun']);
  assert.is(stored.schedule.timeZone, 'Europe/London');
  assert.is(stored.schedule.recording.segmentSeconds, 60);
  await panel.getByText('waiting (clock not synchronized)').waitFor();

  const again = await checkedAndReloaded(ctx, page, 'schedule-preview');
  const text = await (await jsonBox(again)).inputValue();
  assert.equal(JSON.parse(text), stored.schedule);
  await page.screenshot({ path: join(ctx.shots, 'schedule.png'), fullPage: true });
  await page.context().close();
});

web("a wrong document: the agent's 400 text, word for word, and the stored schedule unchanged", async (ctx) => {
  const before = (await api(ctx, 'GET', '/api/v1/schedule')).body.schedule;
  assert.ok(before, 'the previous test stored a schedule');
  const page = await openAs(ctx, ADMIN);
  const panel = panelOf(page);
  await panel.getByText('The stored schedule', { exact: false }).waitFor();
  const bad = { ...DOC, windows: [DOC.windows[0], { start: '25:00', end: '02:00' }] };
  await edit(panel, bad);
  await panel.getByRole('button', { name: 'Save schedule' }).click();
  const theirs = await api(ctx, 'PUT', '/api/v1/schedule', bad);
  assert.equal(theirs, { status: 400, body: { error: 'windows[1].start: must be HH:MM or a sun event with an offset' } });
  await panel.getByRole('alert').filter({ hasText: theirs.body.error }).waitFor();
  assert.is(await panel.getByRole('alert').innerText(), theirs.body.error);
  assert.equal((await api(ctx, 'GET', '/api/v1/schedule')).body.schedule, before);
  // Its preview: the same rule, the path under `schedule.` as the preview route names it.
  await panel.getByRole('button', { name: 'Preview', exact: true }).click();
  await panel.getByRole('alert').filter({ hasText: 'schedule.windows[1].start: must be HH:MM' }).waitFor();
  // Text that is not JSON is said so, and nothing is sent.
  await edit(panel, '{"windows": [');
  await panel.getByRole('button', { name: 'Save schedule' }).click();
  await panel
    .getByRole('alert')
    .filter({ hasText: /^the document is not JSON: / })
    .waitFor();
  assert.equal((await api(ctx, 'GET', '/api/v1/schedule')).body.schedule, before);
  // A change made elsewhere (here the API): the state follows the `schedule` event, no reload;
  // the text being edited is left as it is.
  await panel.getByText('waiting (clock not synchronized)').waitFor();
  assert.is((await api(ctx, 'PUT', '/api/v1/schedule', { ...DOC, enabled: false })).status, 200);
  await panel.getByText('off (disabled)').waitFor();
  assert.is(await panel.getByRole('textbox', { name: 'Schedule document (JSON)' }).inputValue(), '{"windows": [');
  await page.context().close();
});

web('field by field: the form makes the document a person means, previews and stores it, and a refusal marks its field', async (ctx) => {
  assert.is((await api(ctx, 'DELETE', '/api/v1/schedule')).status, 204);
  const page = await openAs(ctx, ADMIN);
  const panel = panelOf(page);
  await panel.getByText('No schedule is stored', { exact: false }).waitFor();
  const windows = panel.getByRole('group', { name: /^Window \d+$/ });
  assert.is(await windows.count(), 2, "the example's two windows");
  // DOC, field by field, starting from the example (sunrise-30m to sunrise+2h; 22:00 to 02:00, 60 s on, 240 s off).
  await control(panel, 'Latitude').fill('51.5');
  await control(panel, 'Longitude').fill('-0.13');
  await control(panel, 'Time zone').fill('Europe/London');
  await control(panel, 'Length (s)').fill('60');
  // Start and end offer the sun events the agent knows, each said in words; an offset is typed after one.
  const end1 = control(panel.getByRole('group', { name: 'Window 1' }), 'End');
  const offered = await end1.evaluate((i: HTMLInputElement) => [...(i.list?.options ?? [])].map((o) => [o.value, o.label]));
  assert.equal(
    offered.map(([value]) => value),
    [...SUN_EVENTS],
  );
  const labels = offered.map(([, label]) => label);
  assert.ok(new Set(labels).size === SUN_EVENTS.length && labels.every((l) => /\w.*: \w/.test(l!)), JSON.stringify(labels));
  assert.is(await panel.getByRole('group', { name: 'Window 2' }).getByRole('combobox', { name: 'Start', exact: true }).count(), 1);
  await end1.fill('sunrise+1h');
  const night = panel.getByRole('group', { name: 'Window 2' });
  for (const day of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri']) await control(night, day).uncheck();
  await control(night, 'On (s)').fill('600');
  await control(night, 'Off (s)').fill('1200');
  // A window added, then removed again.
  await panel.getByRole('button', { name: 'Add window' }).click();
  assert.is(await windows.count(), 3);
  await panel.getByRole('group', { name: 'Window 3' }).getByRole('button', { name: 'Remove window' }).click();
  assert.is(await windows.count(), 2);
  const expected = { ...DOC, recording: { segmentSeconds: 60 } };
  assert.equal(JSON.parse(await (await jsonBox(panel)).inputValue()), expected, 'the JSON box shows what the form holds');

  await panel.getByLabel('Preview from').fill(FROM);
  await panel.getByRole('spinbutton', { name: 'Days' }).fill(String(DAYS));
  await panel.getByRole('button', { name: 'Preview', exact: true }).click();
  await panel.getByRole('region', { name: 'Preview' }).locator('tbody tr').first().waitFor();
  const theirs = await api(ctx, 'POST', '/api/v1/schedule/preview', { schedule: expected, from: FROM, days: DAYS });
  assert.is(theirs.body.windows.length, 6);
  assert.equal(
    await shownWindows(panel),
    theirs.body.windows.map((w: any) => ({ start: w.start, end: w.end, periods: w.on.length })),
  );
  await panel.getByRole('button', { name: 'Save schedule' }).click();
  await panel.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  const stored = (await api(ctx, 'GET', '/api/v1/schedule')).body.schedule;
  assert.equal(stored.location, DOC.location);
  assert.is(stored.timeZone, 'Europe/London');
  assert.is(stored.recording.segmentSeconds, 60);
  assert.equal(
    stored.windows.map((w: any) => [w.start, w.end, w.days ?? null, w.duty ?? null]),
    [
      ['sunrise-30m', 'sunrise+1h', ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], null], // every day: the default, filled in
      ['22:00', '02:00', ['sat', 'sun'], { onSeconds: 600, offSeconds: 1200 }],
    ],
  );

  // A wrong start: the agent's text, the field it names marked, nothing stored; mended, saved.
  const start = control(panel.getByRole('group', { name: 'Window 2' }), 'Start');
  await start.fill('25:00');
  await panel.getByRole('button', { name: 'Save schedule' }).click();
  const refusal = 'windows[1].start: must be HH:MM or a sun event with an offset';
  await panel.getByRole('alert').filter({ hasText: refusal }).waitFor();
  assert.is(await start.getAttribute('aria-invalid'), 'true');
  assert.is(await start.getAttribute('aria-describedby'), await panel.getByRole('alert').getAttribute('id'));
  assert.is(await control(panel.getByRole('group', { name: 'Window 1' }), 'Start').getAttribute('aria-invalid'), null);
  assert.equal((await api(ctx, 'GET', '/api/v1/schedule')).body.schedule, stored);
  // Its preview names the field under `schedule.`: the same control is marked.
  await panel.getByRole('button', { name: 'Preview', exact: true }).click();
  await panel
    .getByRole('alert')
    .filter({ hasText: `schedule.${refusal}` })
    .waitFor();
  assert.is(await start.getAttribute('aria-invalid'), 'true');
  await start.fill('21:30');
  await panel.getByRole('button', { name: 'Save schedule' }).click();
  await panel.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  assert.is(await start.getAttribute('aria-invalid'), null);
  assert.is((await api(ctx, 'GET', '/api/v1/schedule')).body.schedule.windows[1].start, '21:30');

  // A reload shows the stored document in the form.
  const again = await checkedAndReloaded(ctx, page, 'schedule-form');
  assert.is(await control(again, 'Longitude').inputValue(), '-0.13');
  const stored2 = again.getByRole('group', { name: 'Window 2' });
  assert.is(await control(stored2, 'Start').inputValue(), '21:30');
  assert.is(await control(stored2, 'Sat').isChecked(), true);
  assert.is(await control(stored2, 'Wed').isChecked(), false);
  assert.is(await control(stored2, 'Off (s)').inputValue(), '1200');
  await page.context().close();
});

web('a viewer (no scope audio) sees no schedule panel and no save control; the API refuses them the schedule too', async (ctx) => {
  const page = await openAs(ctx, VIEWER);
  await page.getByRole('heading', { name: 'Device status', level: 2 }).waitFor();
  assert.is(await page.getByRole('heading', { name: 'Schedule' }).count(), 0);
  assert.is(await page.getByRole('button', { name: 'Save schedule' }).count(), 0);
  assert.is(await page.getByRole('textbox', { name: 'Schedule document (JSON)' }).count(), 0);
  const token = await ctx.agent.login(VIEWER.username, VIEWER.password);
  const res = await fetch(`${ctx.agent.url}/api/v1/schedule`, { headers: bearer(token) });
  assert.is(res.status, 403);
  assert.equal(await res.json(), { error: 'insufficient scope: audio is required' });
  await page.context().close();
});

web('nothing left for another host, no console error, no CSP violation', ({ problems }) => {
  assert.equal(problems, []);
});

web.run();
