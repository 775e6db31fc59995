// The recording panel's audio controls in a real browser (Debian chromium through
// playwright-core) against the PulseAudio virtual microphone playing a tone: the
// microphone picker lists the devices, "Listen" plays the live stream in the page
// (fetched with the bearer header, never a token in a URL) and the level meter moves; a
// recording ends with what stopped it in words.
import type { Browser, Page } from 'playwright-core';
import { spawn, type ChildProcess } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, startAgent, type TestAgent } from './helpers/agent.ts';
import { fencedContext, launchChromium } from './helpers/browser.ts';
import { startVirtualMic, type VirtualMic } from './helpers/pulse.ts';

interface Ctx {
  mic: VirtualMic;
  agent: TestAgent;
  browser: Browser;
  page: Page;
  problems: string[];
  urls: string[];
  tone: ChildProcess;
}
const web = suite<Ctx>('web interface: microphone, level, listening');

web.before(async (ctx) => {
  ctx.problems = [];
  ctx.urls = [];
  ctx.mic = startVirtualMic();
  ctx.tone = spawn('sox', ['-q', '-n', '-t', 'alsa', 'pulse', 'synth', '120', 'sine', '1000', 'gain', '-12'], {
    env: { ...process.env, ...ctx.mic.env },
    stdio: 'ignore',
  });
  ctx.agent = await startAgent({ env: ctx.mic.env, config: { audio: { device: 'pulse' } } });
  ctx.browser = await launchChromium();
  const context = await fencedContext(ctx.browser, ctx.agent.url, ctx.problems, { viewport: { width: 1280, height: 900 } });
  ctx.page = await context.newPage();
  ctx.page.on('request', (r) => ctx.urls.push(r.url()));
});

web.after(async (ctx) => {
  ctx.tone?.kill();
  await ctx.browser?.close();
  await ctx.agent?.cleanup();
  await ctx.mic?.stop();
});

web(
  'picks the microphone from the list, listens with the level meter moving, records, and says what ended it',
  async ({ page, agent, problems, urls }) => {
    await page.goto(`${agent.url}/`);
    await page.getByRole('textbox', { name: 'Username' }).fill(ADMIN.username);
    await page.getByRole('textbox', { name: 'Password' }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    const mic = page.getByRole('combobox', { name: 'Microphone' });
    await mic.locator('option[value="pulse"]').waitFor({ state: 'attached' });
    assert.is(await mic.inputValue(), 'pulse', 'the configured device is chosen');
    const options = await mic.locator('option').evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));
    assert.ok(options.includes('default') && options.includes('null'), options.join(' '));

    await page.getByRole('button', { name: 'Listen' }).click();
    await page.getByRole('button', { name: 'Stop listening' }).waitFor();
    const meter = page.getByRole('meter', { name: 'Input level' });
    await meter.waitFor({ timeout: 10_000 });
    await page.waitForFunction(() => Number((document.querySelector('meter') as HTMLMeterElement | null)?.value ?? -60) > -20, undefined, {
      timeout: 10_000,
    });
    const peak = await meter.evaluate((m: HTMLMeterElement) => m.value);
    assert.ok(Math.abs(peak + 12) <= 1.5, `the meter shows ${peak} dBFS for a -12 dBFS tone`);
    await page.getByRole('button', { name: 'Stop listening' }).click();
    await page.getByRole('button', { name: 'Listen' }).waitFor();

    await page.getByRole('spinbutton', { name: 'Duration (seconds)' }).fill('1');
    await page.getByRole('combobox', { name: 'Format' }).selectOption('flac');
    await page.getByRole('button', { name: 'Start recording' }).click();
    const state = page.getByRole('status').filter({ hasText: /^State:/ });
    await state.filter({ hasText: /Finished: recordings\/\S+\.flac.*\(it reached its duration\)\./ }).waitFor({ timeout: 15_000 });
    assert.equal(problems, []);
    assert.ok(
      urls.some((u) => u.includes('/api/v1/audio/live?format=wav')),
      'the page fetched the live stream',
    );
    // The login token is a JWT ("eyJ..."): no URL carries it, nor a token parameter.
    assert.not.ok(
      urls.some((u) => /eyJ|Bearer|[?&](access_)?token=/.test(u)),
      urls.join(' '),
    );
  },
);

web.run();
