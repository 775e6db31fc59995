// A finished recording's `file` works as `filepath` for /api/download (docs/api.md#the-recording-status-record).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDir, startAgent, type TestAgent } from './helpers/agent.ts';
import { soxi, startRecording, waitForEnd } from './helpers/audio.ts';
import { bearer } from './helpers/http.ts';

const dl = suite<{ agent: TestAgent; token: string }>('recording then download');
dl.before(async (ctx) => {
  ctx.agent = await startAgent({ config: { audio: { device: 'null' } } });
  ctx.token = await ctx.agent.login();
});
dl.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

const types = { wav: /^audio\/(x-)?wav/, flac: /^audio\/(x-)?flac/, mp3: /^audio\/mpeg/ };
for (const ext of ['wav', 'flac', 'mp3'] as const) {
  dl(`a ${ext} recording downloads byte for byte and plays at its length`, async ({ agent, token }) => {
    const res = await startRecording(agent, token, { duration: 1, fileExtension: ext });
    assert.is(res.status, 202);
    const r = await waitForEnd(agent, token);
    assert.is(r.state, 'finished', r.error ?? '');
    const got = await fetch(`${agent.url}/api/download?filepath=${encodeURIComponent(r.file!)}`, { headers: bearer(token) });
    assert.is(got.status, 200);
    assert.match(got.headers.get('content-type')!, types[ext]);
    assert.is(got.headers.get('content-disposition'), `attachment; filename="${r.file!.split('/').pop()}"`);
    const bytes = Buffer.from(await got.arrayBuffer());
    assert.is(bytes.length, r.sizeBytes);
    assert.ok(bytes.equals(readFileSync(join(agent.baseDir, r.file!))));
    const copy = join(makeDir(), `copy.${ext}`);
    writeFileSync(copy, bytes);
    assert.ok(Math.abs(soxi(copy).seconds - 1) <= 0.25);
  });
}

dl.run();
