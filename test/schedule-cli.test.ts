// `device-agent schedule show|set|clear|preview` (docs/schedule.md, "CLI"): the same file,
// lock and validation as the API; a running agent picks a schedule set by the CLI up
// within 2 s; a refused document exits 1 with the API's text.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { prepareDir, runCli, startAgent } from './helpers/agent.ts';
import { bearer } from './helpers/http.ts';

const cli = suite('schedule CLI');

const DOC = {
  timeZone: 'Europe/London',
  location: { latitude: 51.5074, longitude: -0.1278 },
  windows: [
    { start: '01:30', end: '03:00' },
    { start: 'sunrise', end: 'sunrise+1h', days: ['mon'] },
  ],
};

cli('set, show --json, preview --json, clear; a wrong document exits 1 naming the field', async () => {
  const { dir } = await prepareDir();
  const config = join(dir, 'config.json');
  const set = await runCli(['schedule', 'set', '-', '--config', config], { input: JSON.stringify(DOC) });
  assert.is(set.code, 0, set.stderr);
  assert.is(statSync(join(dir, 'schedule.json')).mode & 0o777, 0o600);
  const show = await runCli(['schedule', 'show', '--json', '--config', config]);
  const shown = JSON.parse(show.stdout);
  assert.is(shown.schedule.recording.segmentSeconds, 300);
  assert.equal(shown.schedule.windows[1].days, ['mon']);
  const preview = await runCli(['schedule', 'preview', '--from', '2024-03-31', '--days', '1', '--json', '--config', config]);
  assert.is(preview.code, 0, preview.stderr);
  assert.equal(JSON.parse(preview.stdout).windows[0].start, '2024-03-31T02:00:00+01:00');
  const human = await runCli(['schedule', 'preview', '--from', '2024-03-31', '--days', '1', '--config', config]);
  assert.match(human.stdout, /^2024-03-31T02:00:00\+01:00 to 2024-03-31T03:00:00\+01:00$/m);
  const bad = await runCli(['schedule', 'set', '-', '--config', config], {
    input: JSON.stringify({ windows: [{ start: '10:00', end: '10:00' }] }),
  });
  assert.equal([bad.code, bad.stderr], [1, 'device-agent: windows[0].end: must differ from start\n']);
  assert.equal(
    JSON.parse((await runCli(['schedule', 'show', '--json', '--config', config])).stdout).schedule.windows.length,
    2,
    'unchanged',
  );
  const days = await runCli(['schedule', 'preview', '--days', '400', '--config', config]);
  assert.is(days.code, 64);
  const clear = await runCli(['schedule', 'clear', '--config', config]);
  assert.is(clear.code, 0);
  assert.equal(JSON.parse((await runCli(['schedule', 'show', '--json', '--config', config])).stdout), { schedule: null });
  const none = await runCli(['schedule', 'preview', '--config', config]);
  assert.equal([none.code, none.stderr], [1, 'device-agent: no schedule\n']);
});

cli('a running agent applies a schedule the CLI set within 2 s, and its removal', async () => {
  const agent = await startAgent();
  try {
    const token = await agent.login();
    const get = async () =>
      (await (await fetch(`${agent.url}/api/v1/schedule`, { headers: bearer(token) })).json()) as {
        schedule: unknown;
        state: { state: string; reason: string };
      };
    assert.is((await get()).schedule, null);
    const set = await runCli(['schedule', 'set', '-', '--config', agent.configFile], { input: JSON.stringify({ ...DOC, enabled: false }) });
    assert.is(set.code, 0, set.stderr);
    const t0 = Date.now();
    let now = await get();
    while (now.schedule === null && Date.now() - t0 < 5000) {
      await new Promise((r) => setTimeout(r, 100));
      now = await get();
    }
    assert.ok(Date.now() - t0 < 2500, `applied after ${Date.now() - t0} ms`);
    assert.equal(now.state.reason, 'disabled');
    assert.is((await runCli(['schedule', 'clear', '--config', agent.configFile])).code, 0);
    const t1 = Date.now();
    while ((await get()).schedule !== null && Date.now() - t1 < 5000) await new Promise((r) => setTimeout(r, 100));
    assert.ok(Date.now() - t1 < 2500, `removed after ${Date.now() - t1} ms`);
  } finally {
    await agent.cleanup();
  }
});

cli.run();
