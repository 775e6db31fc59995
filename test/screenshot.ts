// Takes docs/screenshot.png: the web interface of the built executable, logged in, after a
// recording, with a few files and half a minute of chart. Not a test (the runner takes
// *.test.ts only): node --import tsx test/screenshot.ts, after node build.mjs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN, ROOT, startAgent } from './helpers/agent.ts';
import { fencedContext, launchChromium } from './helpers/browser.ts';

process.env.TEST_AGENT = 'bin';
// HTTPS on (a self-signed certificate made at start): the page shows its fingerprint.
const agent = await startAgent({ config: { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' } } });
const browser = await launchChromium();
try {
  mkdirSync(join(agent.baseDir, 'logs'));
  writeFileSync(join(agent.baseDir, 'logs', 'agent.log'), 'started\n'.repeat(2000));
  writeFileSync(join(agent.baseDir, 'config-backup.json'), JSON.stringify({ port: 5050 }, null, 2));
  writeFileSync(join(agent.baseDir, 'firmware-2.4.1.bin'), Buffer.alloc(3 * 1024 * 1024, 7));
  const problems: string[] = [];
  const context = await fencedContext(browser, agent.url, problems, { viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  await page.goto(`${agent.url}/`);
  await page.getByRole('textbox', { name: 'Username' }).fill(ADMIN.username);
  await page.getByRole('textbox', { name: 'Password' }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('spinbutton', { name: 'Duration (seconds)' }).fill('2');
  await page.getByRole('button', { name: 'Start recording' }).click();
  await page.locator('audio').waitFor({ timeout: 20_000 });
  await page.waitForTimeout(30_000); // the chart fills in
  await page.screenshot({ path: join(ROOT, 'docs/screenshot.png'), fullPage: true });
  if (problems.length > 0) throw new Error(problems.join('\n'));
  console.log('wrote docs/screenshot.png');
} finally {
  await browser.close();
  await agent.cleanup();
}
