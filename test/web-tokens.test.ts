// The web interface by role, in Debian's Chromium (playwright-core): a viewer sees their role
// and no upload, no recording, no delete; everyone has a "Tokens" panel (list, create with
// scopes, directory and expiry, the text shown once with a copy button, revoke); an admin
// sees and revokes everyone's and makes one for another user. Controls found by role and
// accessible name; no request to another host, no console error, the CSP holds.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDir, startAgent, type TestAgent } from './helpers/agent.ts';
import { fencedContext, launchChromium, axeViolations } from './helpers/browser.ts';

const PASSWORD = 'a password for the page';
/** Statuses provoked on purpose (Chromium logs each as a console error). */
const PROVOKED = /^Failed to load resource: the server responded with a status of (401|403|409) /;
const TOKEN = /^dat_[A-Za-z0-9_-]{43}$/;

interface Ctx {
  agent: TestAgent;
  browser: Browser;
  problems: string[];
  shots: string;
}
const ui = suite<Ctx>('web interface by role, and its tokens panel');

ui.before(async (ctx) => {
  ctx.problems = [];
  ctx.shots = makeDir('da-web-tokens-screenshots-');
  ctx.agent = await startAgent({
    users: [
      { username: 'vera', password: PASSWORD, role: 'viewer' },
      { username: 'ada', password: PASSWORD, role: 'admin' },
    ],
  });
  mkdirSync(join(ctx.agent.baseDir, 'kiosk'));
  ctx.browser = await launchChromium();
  console.log(`screenshots in ${ctx.shots}`);
});

ui.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.agent?.cleanup();
});

async function openAs(ctx: Ctx, username: string): Promise<Page> {
  const context = await fencedContext(ctx.browser, ctx.agent.url, ctx.problems, { viewport: { width: 1280, height: 1000 } }, PROVOKED);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ctx.agent.url });
  const page = await context.newPage();
  await page.goto(`${ctx.agent.url}/`);
  await page.getByRole('textbox', { name: 'Username' }).fill(username);
  await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Tokens', level: 2 }).waitFor();
  return page;
}

const status = (agent: TestAgent, path: string, token: string, method = 'GET') =>
  fetch(`${agent.url}${path}`, { method, headers: { Authorization: `Bearer ${token}` } }).then(async (r) => ({
    status: r.status,
    body: await r.text(),
  }));

/** Waits until the agent refuses a token (revocation takes effect within 2 s). */
async function refusedWithin(agent: TestAgent, token: string, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if ((await status(agent, '/api/v1/devicestatus/get', token)).status === 401) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

ui('a viewer sees their role, the status and the files, and no upload, no recording, no delete', async (ctx) => {
  const page = await openAs(ctx, 'vera');
  const bar = page.locator('header');
  await bar.getByText('viewer', { exact: true }).waitFor();
  assert.match(await bar.innerText(), /vera · viewer/);
  for (const name of ['Device status', 'Files', 'Tokens']) await page.getByRole('heading', { name, level: 2 }).waitFor();
  assert.is(await page.getByRole('heading', { name: 'Recording' }).count(), 0, 'no recording panel');
  assert.is(await page.getByRole('button', { name: 'Start recording' }).count(), 0);
  await page.getByRole('table').first().waitFor();
  assert.not.ok(await page.getByLabel('Upload files').isVisible(), 'no upload');
  assert.is(await page.getByRole('button', { name: /^(Delete|Remove)\b/ }).count(), 0, 'no delete');
  // The scopes offered are the viewer's own.
  const scopes = page.getByRole('group', { name: 'Scopes' }).getByRole('checkbox');
  assert.equal(await scopes.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value)), ['status', 'files:read', 'metrics']);
  assert.equal(await axeViolations(page), []);
  await page.screenshot({ path: join(ctx.shots, 'viewer.png'), fullPage: true });
  await page.context().close();
});

ui('a viewer makes a token: shown once with a copy button and the note, it works with their rights, and is revoked', async (ctx) => {
  const page = await openAs(ctx, 'vera');
  const panel = page.locator('section', { has: page.getByRole('heading', { name: 'Tokens' }) });
  await panel.getByText('No tokens yet.').waitFor();
  await page.getByRole('textbox', { name: 'Token name' }).fill('kiosk');
  await page.getByRole('checkbox', { name: 'metrics' }).uncheck();
  await page.getByRole('textbox', { name: 'Directory' }).fill('kiosk');
  await page.getByRole('combobox', { name: 'Expires' }).selectOption({ label: '30 days' });
  await page.getByRole('button', { name: 'Create token' }).click();
  const text = page.getByRole('textbox', { name: 'New token' });
  await text.waitFor();
  const token = await text.inputValue();
  assert.match(token, TOKEN);
  await panel.getByText('Copy it now: it will not be shown again.', { exact: false }).waitFor();
  await page.getByRole('button', { name: 'Copy', exact: true }).click();
  await panel.getByText('Copied.').waitFor();
  assert.is(await page.evaluate(() => navigator.clipboard.readText()), token);
  // The list: name, scopes, directory, an expiry about 30 days away.
  const row = panel.getByRole('row', { name: /kiosk/ });
  await row.waitFor();
  const cells = await row.getByRole('cell').allInnerTexts();
  assert.is(cells[0], 'kiosk');
  assert.is(cells[1], 'status, files:read');
  assert.is(cells[2], 'kiosk');
  // The text is in no list and not in the page once dismissed.
  await page.getByRole('button', { name: 'Done' }).click();
  assert.not.ok((await page.content()).includes(token), 'the token is not shown again');
  // It works, with the rights asked for: status yes, the directory yes, the base no, upload no.
  assert.is((await status(ctx.agent, '/api/v1/devicestatus/get', token)).status, 200);
  assert.is((await status(ctx.agent, '/api/v1/files/list?path=kiosk', token)).status, 200);
  assert.equal(await status(ctx.agent, '/api/v1/files/list?path=', token), { status: 403, body: '{"error":"file path is not allowed"}' });
  assert.is((await status(ctx.agent, '/metrics', token)).status, 403);
  await page.getByRole('button', { name: 'Revoke kiosk' }).click();
  await panel.getByText('No tokens yet.').waitFor();
  assert.ok(await refusedWithin(ctx.agent, token, 2500), 'refused within 2 s of the revocation');
  await page.context().close();
});

ui("an admin sees everyone's tokens, makes one for another user within that user's rights, and revokes it", async (ctx) => {
  const vera = await ctx.agent.login('vera', PASSWORD);
  const res = await fetch(`${ctx.agent.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${vera}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'dashboard' }),
  });
  assert.is(res.status, 201);
  const veras = ((await res.json()) as { token: string }).token;
  const page = await openAs(ctx, 'ada');
  await page.locator('header').getByText('admin', { exact: true }).waitFor();
  // Everything an admin may do is offered.
  for (const name of ['Device status', 'Recording', 'Files', 'Tokens']) await page.getByRole('heading', { name, level: 2 }).waitFor();
  assert.ok(await page.getByLabel('Upload files').isVisible(), 'upload offered');
  await page.getByRole('button', { name: 'Start recording' }).waitFor();
  const panel = page.locator('section', { has: page.getByRole('heading', { name: 'Tokens' }) });
  await panel.getByRole('columnheader', { name: 'User' }).waitFor();
  const veraRow = panel.getByRole('row', { name: /dashboard/ });
  await veraRow.waitFor();
  assert.is((await veraRow.getByRole('cell').allInnerTexts())[1], 'vera');
  // A token for vera: only her scopes are offered.
  await page.getByRole('combobox', { name: 'For user' }).selectOption('vera');
  const enabled = await page
    .getByRole('group', { name: 'Scopes' })
    .getByRole('checkbox')
    .evaluateAll((els) => els.filter((e) => !(e as HTMLInputElement).disabled).map((e) => (e as HTMLInputElement).value));
  assert.equal(enabled, ['status', 'files:read', 'metrics']);
  await page.getByRole('textbox', { name: 'Token name' }).fill('wallboard');
  await page.getByRole('combobox', { name: 'Expires' }).selectOption({ label: 'Never' });
  await page.getByRole('button', { name: 'Create token' }).click();
  const made = await page.getByRole('textbox', { name: 'New token' }).inputValue();
  assert.match(made, TOKEN);
  const row = panel.getByRole('row', { name: /wallboard/ });
  await row.waitFor();
  const cells = await row.getByRole('cell').allInnerTexts();
  assert.equal(cells.slice(0, 5), ['wallboard', 'vera', 'status, files:read, metrics', 'all', 'never']);
  // A name taken: the API's text.
  await page.getByRole('textbox', { name: 'Token name' }).fill('wallboard');
  await page.getByRole('button', { name: 'Create token' }).click();
  await panel.getByRole('alert').filter({ hasText: 'a token named wallboard already exists' }).waitFor();
  assert.equal(await axeViolations(page), []);
  await page.screenshot({ path: join(ctx.shots, 'admin.png'), fullPage: true });
  // At 360 px the panel, its table and the shown token fit: no page-wide horizontal scroll.
  await page.setViewportSize({ width: 360, height: 800 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  // The widest elements that stick out, named in the failure: what to fix.
  const wide =
    width <= 360
      ? []
      : await page.evaluate(() =>
          [...document.querySelectorAll('body *')]
            .filter((e) => e.getBoundingClientRect().right > 362 && !e.closest('.table-wrap'))
            .slice(0, 8)
            .map(
              (e) =>
                `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${String(e.className).replace(/ /g, '.')} ${Math.round(e.getBoundingClientRect().width)}px`,
            ),
        );
  assert.ok(width <= 360, `page width ${width} px at a 360 px viewport: ${wide.join(', ')}`);
  await page.screenshot({ path: join(ctx.shots, 'admin-360.png'), fullPage: true });
  // Revokes vera's own token.
  await page.getByRole('button', { name: 'Revoke dashboard of vera' }).click();
  await veraRow.waitFor({ state: 'detached' });
  assert.ok(await refusedWithin(ctx.agent, veras, 2500), 'refused within 2 s of the revocation');
  assert.is((await status(ctx.agent, '/api/v1/devicestatus/get', made)).status, 200);
  await page.context().close();
});

ui('nothing left for another host, no console error, no CSP violation', ({ problems }) => {
  assert.equal(problems, []);
});

ui.run();
