// /docs in a real browser (Debian chromium through playwright-core): the page loads from
// the agent alone, logs in, authorizes, runs device status and an upload through
// "Try it out". Any request to another host, page error or CSP violation fails it.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, ROOT, startAgent, type TestAgent } from './helpers/agent.ts';
import { fencedContext, launchChromium } from './helpers/browser.ts';

const SCREENSHOT = join(ROOT, 'test-artifacts/docs.png');

interface Ctx {
  agent: TestAgent;
  browser: Browser;
  page: Page;
  /** Requests to anything but the agent, page errors, CSP violations. */
  problems: string[];
  token: string;
}

const browser = suite<Ctx>('docs in a browser');

browser.before(async (ctx) => {
  ctx.problems = [];
  ctx.agent = await startAgent();
  ctx.browser = await launchChromium();
  const context = await fencedContext(ctx.browser, ctx.agent.url, ctx.problems, { viewport: { width: 1280, height: 900 } }, /./); // Swagger UI shows refused answers on purpose; only CSP, page errors and other hosts count here
  ctx.page = await context.newPage();
});

browser.after(async (ctx) => {
  if (ctx.page) {
    mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
    // The top of the page: title, Authorize (locked once authorized) and the login answer.
    await ctx.page.screenshot({ path: SCREENSHOT, clip: { x: 0, y: 0, width: 1280, height: 1400 }, fullPage: true }).catch(() => {}); // no screenshot when the page never opened: the failing case says why
  }
  await ctx.browser?.close();
  await ctx.agent?.cleanup();
});

/** Opens an operation, presses "Try it out", lets `fill` set the inputs, presses Execute. */
async function execute(page: Page, id: string, path: string, fill: (op: ReturnType<Page['locator']>) => Promise<void> = async () => {}) {
  const op = page.locator(`#operations-${id}`);
  if (!(await op.locator('.try-out__btn').isVisible())) await op.locator('.opblock-summary-control').click();
  await op.locator('.try-out__btn:not(.cancel)').click();
  await fill(op);
  const answer = page.waitForResponse((r) => new URL(r.url()).pathname === path);
  await op.locator('.btn.execute').click();
  const response = await answer;
  const shown = op.locator('.live-responses-table tbody .response-col_status').first();
  await shown.waitFor();
  return { response, shown: (await shown.innerText()).trim(), op };
}

browser('loads /docs and its document from the agent alone, without a token', async ({ page, agent, problems }) => {
  const res = await page.goto(`${agent.url}/docs`);
  assert.is(res?.status(), 200);
  await page.locator('.swagger-ui .info .title').waitFor();
  assert.match(await page.locator('.swagger-ui .info .title').innerText(), 'device-agent');
  await page.locator('#operations-auth-login').waitFor();
  assert.equal(problems, []);
});

browser('logs in through the login operation', async (ctx) => {
  const { response, shown } = await execute(ctx.page, 'auth-login', '/api/v1/agentusers/loginusertoagent', async (op) => {
    await op.locator('textarea.body-param__text').fill(JSON.stringify(ADMIN));
  });
  assert.is(response.status(), 200);
  assert.is(shown, '200');
  const body = (await response.json()) as { token: string; user: { username: string } };
  assert.is(body.user.username, 'admin');
  ctx.token = body.token;
});

browser('authorizes with the token and reads the device status', async ({ page, token }) => {
  await page.locator('.auth-wrapper .btn.authorize').click();
  const modal = page.locator('.modal-ux');
  // The document has two Bearer schemes (docs/api.md#metrics: the scrape token for /metrics):
  // the API's token goes into bearerAuth's form, and only that one is authorized.
  const form = modal.locator('form').filter({ hasText: 'bearerAuth' });
  await form.locator('input').fill(token);
  await form.locator('.auth-btn-wrapper .btn.authorize').click();
  await modal.locator('.btn-done').first().click();

  const { response, shown } = await execute(page, 'status-deviceStatus', '/api/v1/devicestatus/get');
  assert.is(response.request().headers().authorization, `Bearer ${token}`);
  assert.is(response.status(), 200);
  assert.is(shown, '200');
  assert.is(((await response.json()) as { agent: { version: string } }).agent.version, '0.1.0');
});

browser('uploads a file through the multipart form', async ({ page, agent }) => {
  const { response, shown } = await execute(page, 'files-upload', '/api/upload', async (op) => {
    await op.locator('tr[data-property-name="saveToPath"] input').fill('from-the-browser.txt');
    await op.locator('tr[data-property-name="myFile"] input[type="file"]').setInputFiles({
      name: 'hello.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('hello from swagger ui'),
    });
  });
  const sent = response.request();
  assert.match(sent.headers()['content-type'] ?? '', /^multipart\/form-data; boundary=/);
  const form = sent.postDataBuffer()?.toString('latin1') ?? '';
  assert.match(form, /name="saveToPath"\r\n\r\nfrom-the-browser\.txt\r\n/);
  assert.match(form, /name="myFile"; filename="hello\.txt"\r\nContent-Type: text\/plain\r\n\r\nhello from swagger ui\r\n/);
  assert.is(response.status(), 200, `upload answered ${response.status()}: ${await response.text()}`);
  assert.is(shown, '200');
  assert.equal(await response.json(), { message: 'Uploaded successfully' });
  assert.is(readFileSync(join(agent.baseDir, 'from-the-browser.txt'), 'utf8'), 'hello from swagger ui');
});

browser('downloads the uploaded file back', async ({ page, token }) => {
  const { response, shown, op } = await execute(page, 'files-download', '/api/download', async (o) => {
    await o.locator('tr[data-param-name="filepath"] input').fill('from-the-browser.txt');
  });
  assert.is(response.request().headers().authorization, `Bearer ${token}`);
  assert.is(response.status(), 200, `download answered ${response.status()}: ${await response.text()}`);
  assert.is(shown, '200');
  assert.is(await response.text(), 'hello from swagger ui');
  assert.is(response.headers()['content-disposition'], 'attachment; filename="from-the-browser.txt"');
  // Swagger UI offers the bytes as a file to save.
  await op.locator('.live-responses-table a[download]').waitFor();
});

browser('makes a folder, moves the uploaded file into it and deletes the folder', async ({ page, agent, token }) => {
  const made = await execute(page, 'files-makeDirectory', '/api/v1/files/mkdir', async (op) => {
    await op.locator('textarea.body-param__text').fill(JSON.stringify({ path: 'swagger-made' }));
  });
  assert.is(made.response.request().headers().authorization, `Bearer ${token}`);
  assert.is(made.response.status(), 201, await made.response.text());
  assert.is(made.shown, '201');
  const moved = await execute(page, 'files-moveFile', '/api/v1/files/move', async (op) => {
    await op.locator('textarea.body-param__text').fill(JSON.stringify({ from: 'from-the-browser.txt', to: 'swagger-made/moved.txt' }));
  });
  assert.is(moved.response.status(), 200, await moved.response.text());
  assert.equal(await moved.response.json(), { path: 'swagger-made/moved.txt' });
  assert.is(readFileSync(join(agent.baseDir, 'swagger-made/moved.txt'), 'utf8'), 'hello from swagger ui');
  const deleted = await execute(page, 'files-deleteFile', '/api/v1/files', async (op) => {
    await op.locator('tr[data-param-name="path"] input').fill('swagger-made');
    await op.locator('tr[data-param-name="recursive"] select').selectOption('true');
  });
  assert.is(deleted.response.status(), 204, await deleted.response.text());
  assert.is(deleted.shown, '204');
  assert.is(existsSync(join(agent.baseDir, 'swagger-made')), false);
});

browser('made no request to another host and raised no page error', ({ problems }) => {
  assert.equal(problems, []);
});

browser.run();
