// The CLI's audit events to journald (src/audit/trail.ts, mode 'cli'): a stream to the
// journal's socket with the identifier device-agent-audit, one JSON line per event, and the
// process goes on after close() (it prints its answer then: before, the unref'd stream let
// `token create` exit inside that await without printing the token it had made). A unix
// socket of the test's own stands in for /run/systemd/journal/stdout.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDir, ROOT } from './helpers/agent.ts';

const journal = suite('audit trail to the journal, from the CLI');

journal('sends the stream header and the event, and the process carries on after close()', async () => {
  const dir = makeDir('da-journal-');
  const path = join(dir, 'stdout');
  let received = '';
  const server = createServer((s) => {
    s.setEncoding('utf8');
    s.on('data', (d) => {
      received += d;
    });
    s.on('end', () => s.end());
  });
  await new Promise<void>((r) => server.listen(path, r));
  try {
    const script = `
      import { createAudit } from ${JSON.stringify(join(ROOT, 'src/audit/trail.ts'))};
      const audit = createAudit(null, (t) => console.error(t), 'cli', ${JSON.stringify(path)});
      audit.record({ event: 'token.create', outcome: 'ok', user: 'ada', credential: 'cli', client: 'local', name: 'x' });
      await audit.close();
      console.log('after close');`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    const code = await new Promise((r) => child.on('close', r));
    assert.is(code, 0, out);
    assert.is(out, 'after close\n');
    const lines = received.split('\n');
    assert.equal(lines.slice(0, 7), ['device-agent-audit', '', '6', '0', '0', '0', '0']);
    const event = JSON.parse(lines[7]!);
    assert.equal([event.event, event.user, event.credential, event.name], ['token.create', 'ada', 'cli', 'x']);
    assert.is(lines[8], '');
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

journal.run();
