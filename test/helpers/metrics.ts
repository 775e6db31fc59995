// Reading /metrics in tests: the scrape token an agent created, a scrape, its samples.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestAgent } from './agent.ts';

/** The token the agent created beside its JWT secret (the default metrics.tokenFile). */
export function metricsToken(agent: TestAgent): string {
  return readFileSync(join(agent.dir, 'metrics.token'), 'utf8').trim();
}

export async function scrapeText(agent: TestAgent, token = metricsToken(agent)): Promise<string> {
  const res = await fetch(`${agent.url}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`scrape: ${res.status} ${await res.text()}`);
  return res.text();
}

/** Samples by their series as written (`name{labels}`), comments left out. */
export function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return out;
}

export async function scrape(agent: TestAgent): Promise<Map<string, number>> {
  return samples(await scrapeText(agent));
}
