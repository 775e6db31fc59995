// A JSON body abandoned by its client (it declares 8192 bytes, sends 12, closes) is one
// access-log line that says aborted, with the bytes the client got (none), and nothing
// else: no stack trace, no error line (docs/api.md#every-response). Under a slow-body attack each
// such request would otherwise put six lines into the journal.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { sendRaw } from './helpers/http.ts';
import { eventually } from './helpers/proc.ts';

/** Sends a head declaring 8192 bytes and 12 of them, waits `ms`, then closes; resolves with what came back. */
function abandon(port: number, path: string, token: string, ms: number): Promise<string> {
  const head =
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 8192\r\n` +
    `${token ? `Authorization: Bearer ${token}\r\n` : ''}\r\n`;
  return sendRaw(port, head, Buffer.from('{"username":'), ms);
}

const ab = suite<{ agent: TestAgent; token: string }>('abandoned JSON bodies');
ab.before(async (ctx) => {
  ctx.agent = await startAgent();
  ctx.token = await ctx.agent.login();
  // The login's own line comes when its response closes: before the tests read the log.
  assert.ok(await eventually(() => /\/loginusertoagent 200 /.test(ctx.agent.output()), 3000));
});
ab.after(async (ctx) => {
  await ctx.agent.cleanup();
});

for (const [path, who] of [
  ['/api/v1/agentusers/loginusertoagent', '-'],
  ['/api/v1/audiofiles/audiorecordstart', 'admin'],
] as const) {
  ab(`POST ${path}, body abandoned: one line, aborted, 0 bytes, nothing else`, async ({ agent, token }) => {
    const mark = agent.output().length;
    const lines = () =>
      agent
        .output()
        .slice(mark)
        .split('\n')
        .filter((l) => l !== '');
    // Closed at once, and after the agent has waited a while for the rest.
    for (const ms of [0, 30, 300]) {
      const got = await abandon(agent.port, path, who === '-' ? '' : token, ms);
      assert.is(got, '', `the client received ${JSON.stringify(got)}`);
    }
    assert.ok(await eventually(() => lines().length >= 3, 3000), agent.output());
    await new Promise((r) => setTimeout(r, 300)); // anything logged late shows up too
    const line = new RegExp(`^<6>\\S+Z POST ${path.replace(/\//g, '\\/')} 000-aborted 0 [\\d.]+ms ${who}$`);
    assert.is(lines().length, 3, lines().join('\n'));
    for (const l of lines()) assert.ok(line.test(l), l);
    // The agent still answers on that route.
    const res = await fetch(`${agent.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[]' });
    assert.ok(res.status === 400 || res.status === 401, String(res.status));
    assert.ok(await eventually(() => lines().length === 4, 3000)); // its line, before the next test reads the log
  });
}

ab.run();
