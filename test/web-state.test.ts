// The outbox and the MQTT link in the web interface (docs/outbox.md, docs/mqtt.md), in Debian's
// Chromium against real agents: one with the outbox on (s3rver, test/helpers/s3.ts) and a
// Mosquitto link, one with neither. The status page's "Outbox" and "MQTT" parts read exactly
// what GET /api/v1/outbox and GET /api/v1/mqtt say (idle, then waiting with the store's error;
// connected, then not with the link's error); the Files view marks an uploaded file and only
// it; the agent without them shows no such part and no mark. No request to another host, no
// console error, the CSP holds.
import { randomBytes } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, startAgent, type TestAgent } from './helpers/agent.ts';
import { fencedContext, launchChromium } from './helpers/browser.ts';
import { upload } from './helpers/files.ts';
import { bearer } from './helpers/http.ts';
import { mosquitto, type Broker } from './helpers/mqtt.ts';
import { agentWith, stateWhen, writeSettled } from './helpers/outbox.ts';
import { until } from './helpers/proc.ts';
import { startStore, type Store } from './helpers/s3.ts';

interface Ctx {
  store: Store;
  broker: Broker;
  agent: TestAgent;
  token: string;
  browser: Browser;
  problems: string[];
}

const web = suite<Ctx>('web interface: the outbox and the MQTT link');

const FILES = {
  'recordings/a.wav': randomBytes(1500),
  'recordings/.hidden': randomBytes(10),
  'elsewhere/h.wav': randomBytes(10),
};

web.before(async (ctx) => {
  ctx.problems = [];
  ctx.store = await startStore();
  ctx.broker = await mosquitto();
  ctx.agent = await agentWith(ctx.store, FILES, {}, undefined, { config: { deviceId: 'dev-1', mqtt: { url: ctx.broker.url } } });
  ctx.token = await ctx.agent.login();
  ctx.browser = await launchChromium();
});

web.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.agent?.cleanup();
  await ctx.store?.close();
  await ctx.broker?.cleanup();
});

async function openAs(ctx: Ctx, agent: TestAgent): Promise<Page> {
  const context = await fencedContext(ctx.browser, agent.url, ctx.problems, { viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  await page.goto(`${agent.url}/`);
  await page.getByRole('textbox', { name: 'Username' }).fill(ADMIN.username);
  await page.getByRole('textbox', { name: 'Password' }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Device status', level: 2 }).waitFor();
  return page;
}

/** A part's figures as shown: each term and its value's visible text. */
const figures = (part: Locator): Promise<Record<string, string>> =>
  part
    .locator('dl')
    .evaluate((dl) =>
      Object.fromEntries([...dl.querySelectorAll('dt')].map((dt) => [dt.textContent, (dt.nextElementSibling as HTMLElement).innerText])),
    );

/** The page's own rendering of a time (format.ts's `when`: the browser's locale and zone). */
const when = (page: Page, iso: string) =>
  page.evaluate((t) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(t)), iso);

/** The Files view's name cells in `dir`, as shown. */
async function nameCells(page: Page, dir: string): Promise<string[]> {
  const files = page.locator('section', { has: page.getByRole('heading', { name: 'Files', level: 2 }) });
  if (dir !== '') await files.getByRole('link', { name: dir, exact: true }).click();
  await files
    .getByRole('navigation', { name: 'Breadcrumbs' })
    .locator('[aria-current]', { hasText: dir || 'Base directory' })
    .waitFor();
  return files.locator('tbody tr td:first-child').allInnerTexts();
}

interface Api {
  lastSuccessAt: string;
  lastError: { time: string; text: string } | null;
  nextAttemptAt: string | null;
}
interface Mqtt {
  connected: boolean;
  since: string;
  url: string;
  lastError: { time: string; text: string } | null;
}
const mqttState = async (ctx: Ctx) => (await (await fetch(`${ctx.agent.url}/api/v1/mqtt`, { headers: bearer(ctx.token) })).json()) as Mqtt;

web('outbox on: the status page shows its state, and an uploaded file carries the mark, others none', async (ctx) => {
  const state = (await stateWhen(
    ctx.agent,
    ctx.token,
    'a.wav uploaded',
    (s) => s.state === 'idle' && s.uploaded.files === 1,
  )) as unknown as Api;
  const link = await until('the link connected', async () => {
    const m = await mqttState(ctx);
    return m.connected && m;
  });
  const page = await openAs(ctx, ctx.agent);
  const outbox = page.getByRole('region', { name: 'Outbox' });
  await outbox.waitFor();
  assert.equal(await figures(outbox), {
    State: 'idle',
    Pending: '0 files, 0 B',
    Failed: '0 files',
    'Last upload': `${await when(page, state.lastSuccessAt)} (1 file, 1.5 KiB since the agent started)`,
    'Last error': 'none',
  });
  const mqtt = page.getByRole('region', { name: 'MQTT' });
  await mqtt.waitFor();
  assert.equal(await figures(mqtt), {
    Link: `connected (since ${await when(page, link.since)})`,
    Broker: ctx.broker.url,
    'Last error': 'none',
  });
  // files/list: true for a.wav, false for .hidden (never shipped), null outside outbox.paths.
  assert.equal((await nameCells(page, 'recordings')).sort(), ['.hidden', 'a.wav uploaded']);
  await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'Base directory' }).click();
  assert.equal(await nameCells(page, 'elsewhere'), ['h.wav']);
  assert.equal(ctx.problems, []);
  await page.context().close();
});

web('a store that fails: "waiting", the pending file with its size, the store\'s error text; refreshed without a reload', async (ctx) => {
  const page = await openAs(ctx, ctx.agent);
  const outbox = page.getByRole('region', { name: 'Outbox' });
  await outbox.waitFor();
  ctx.store.failWith = 503;
  const res = await upload(ctx.agent.url, ctx.token, [
    { name: 'saveToPath', value: 'recordings/b.wav' },
    { name: 'myFile', filename: 'b.wav', value: randomBytes(3000) },
  ]);
  assert.is(res.status, 200);
  const failing = (await stateWhen(
    ctx.agent,
    ctx.token,
    'the store refused',
    (s) => s.state === 'waiting' && s.lastError !== null,
  )) as unknown as Api;
  // The page asks again every 10 s with the status: no reload here. Times move with each attempt.
  const shown = await until(
    'the page shows the wait',
    async () => {
      const f = await figures(outbox);
      return f.State?.startsWith('waiting (next attempt ') && f;
    },
    30_000,
  );
  assert.is(shown.Pending, '1 file, 2.9 KiB');
  assert.is(shown.Failed, '0 files');
  assert.match(shown['Last error']!, /^503 SlowDown: Please reduce your request rate\. \(.+\)$/);
  assert.ok(shown['Last error']!.startsWith(`${failing.lastError!.text} (`), shown['Last error']);
  ctx.store.failWith = 0;
  await stateWhen(ctx.agent, ctx.token, 'b.wav uploaded', (s) => s.state === 'idle' && s.uploaded.files === 2);
  assert.equal(ctx.problems, []);
  await page.context().close();
});

web('the broker gone: the MQTT part says "not connected" and the link\'s last error', async (ctx) => {
  const page = await openAs(ctx, ctx.agent);
  const mqtt = page.getByRole('region', { name: 'MQTT' });
  await mqtt.waitFor();
  await ctx.broker.stop();
  await until('the link down', async () => !(await mqttState(ctx)).connected && (await mqttState(ctx)).lastError);
  // Each attempt to reconnect may write a new error: the page, refreshed every 10 s, catches up with the API.
  const shown = await until(
    "the page shows the link down with the API's error",
    async () => {
      const [f, m] = [await figures(mqtt), await mqttState(ctx)];
      return (
        f.Link?.startsWith('not connected (since ') &&
        m.lastError !== null &&
        f['Last error'] === `${m.lastError.text} (${await when(page, m.lastError.time)})` &&
        f
      );
    },
    40_000,
  );
  assert.is(shown.Broker, ctx.broker.url);
  assert.equal(ctx.problems, []);
  await page.context().close();
});

web('a 403 from GET /api/v1/outbox hides the part without an error (a token with status alone)', async (ctx) => {
  const res = await fetch(`${ctx.agent.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { ...bearer(ctx.token), 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'status-only', scopes: ['status'] }),
  });
  assert.is(res.status, 201);
  const { token } = (await res.json()) as { token: string };
  // The page believes it may read files (the user's record says so); the token says otherwise.
  const user = { id: ctx.agent.users[0]!.id, username: ADMIN.username, role: 'admin', scopes: ['status', 'files:read'], directory: null };
  const problems: string[] = [];
  const context = await fencedContext(
    ctx.browser,
    ctx.agent.url,
    problems,
    {},
    /^Failed to load resource: the server responded with a status of 403 /,
  );
  await context.addInitScript(
    ([t, u]) => {
      if (location.protocol !== 'http:') return; // about:blank has no storage of its own
      sessionStorage.setItem('device-agent.token', t);
      sessionStorage.setItem('device-agent.user', u);
    },
    [token, JSON.stringify(user)] as const,
  );
  const page = await context.newPage();
  const refused = page.waitForResponse((r) => r.url().endsWith('/api/v1/outbox'));
  await page.goto(`${ctx.agent.url}/`);
  assert.is((await refused).status(), 403);
  const status = page.locator('section.status');
  await page.getByRole('region', { name: 'MQTT' }).waitFor();
  assert.is(await page.getByRole('heading', { name: 'Outbox' }).count(), 0);
  assert.is(await status.getByRole('alert').count(), 0);
  assert.not.match(await status.innerText(), /insufficient scope|Outbox/);
  assert.equal(problems, []);
  await context.close();
});

web('an agent without outbox and MQTT: no such part on the status page, no mark in Files', async (ctx) => {
  const agent = await startAgent({});
  try {
    writeSettled(agent.dir, { 'recordings/a.wav': randomBytes(100) });
    const context = await fencedContext(ctx.browser, agent.url, ctx.problems, { viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    // Both answers arrive (the off states) before the page is looked at.
    const answers = Promise.all(['/api/v1/outbox', '/api/v1/mqtt'].map((p) => page.waitForResponse((r) => r.url().endsWith(p))));
    await page.goto(`${agent.url}/`);
    await page.getByRole('textbox', { name: 'Username' }).fill(ADMIN.username);
    await page.getByRole('textbox', { name: 'Password' }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    const [outboxRes, mqttRes] = await answers;
    assert.equal(await outboxRes!.json(), { enabled: false, state: 'off' });
    assert.equal(await mqttRes!.json(), { enabled: false });
    await page.getByRole('heading', { name: 'Device status', level: 2 }).waitFor();
    assert.is(await page.getByRole('heading', { name: 'Outbox' }).count(), 0);
    assert.is(await page.getByRole('heading', { name: 'MQTT' }).count(), 0);
    assert.not.match(await page.locator('section.status').innerText(), /Outbox|MQTT|Broker/);
    assert.equal(await nameCells(page, 'recordings'), ['a.wav']);
    assert.equal(ctx.problems, []);
    await context.close();
  } finally {
    await agent.cleanup();
  }
});

web.run();
