// Headless Debian chromium through playwright-core, fenced to one agent: any request to
// another host is recorded and never sent; page errors, console errors and CSP violations
// are recorded too, for a test to assert that there were none.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--autoplay-policy=no-user-gesture-required',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * A context whose pages may reach `origin` alone. `problems` gathers requests elsewhere,
 * page errors, CSP violations and console errors (unless `allowConsole` matches the text
 * followed by a space and the URL it names).
 */
export async function fencedContext(
  browser: Browser,
  origin: string,
  problems: string[],
  options: BrowserContextOptions = {},
  allowConsole: RegExp = /$^/,
): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith('blob:') || url.startsWith('data:')) return route.continue();
    problems.push(`request to another host: ${url}`);
    return route.abort();
  });
  context.on('page', (page) => {
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      const text = msg.text();
      if (/Content.Security.Policy/i.test(text)) problems.push(`CSP: ${text}`);
      else if (msg.type() === 'error' && !allowConsole.test(`${text} ${msg.location().url}`))
        problems.push(`console error: ${text} (${msg.location().url})`);
    });
  });
  return context;
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page (evaluated through the DevTools protocol, which the CSP does not govern). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const r = await (
      window as unknown as {
        axe: { run(): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe.run();
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.targets.join(', ')})`);
}
