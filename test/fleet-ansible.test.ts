// The Ansible collection deviceagent.fleet, built and installed with Debian's ansible-galaxy,
// run by ansible-playbook -f 5 against five real agents on loopback over HTTPS with pins.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { cannotRunAnsible, COLLECTION_SRC, setUpAnsible, type Ansible } from './helpers/ansible.ts';
import { VERSION } from './helpers/packages.ts';
import { startVirtualMic, type VirtualMic } from './helpers/pulse.ts';

const runP = promisify(execFile);
const SANITY_NEEDS_PYPI = ['ansible-doc', 'import', 'pep8', 'pylint', 'runtime-metadata', 'validate-modules', 'yamllint'];
const VALIDATE_MODULES = '/usr/lib/python3/dist-packages/ansible_test/_util/controller/sanity/validate-modules/validate.py';
const HOSTS = ['dev1', 'dev2', 'dev3', 'dev4', 'dev5'];
const fleet = suite('deviceagent.fleet modules against five agents');
const why = cannotRunAnsible();
const it = why ? fleet.skip : fleet;
if (why) console.log(`  ansible tests skipped: ${why}`);

let tmp: string;
let ansible: Ansible;
const agents: TestAgent[] = [];
const pins: string[] = [];
const tokens: string[] = [];
const narrow: string[] = [];
let inventory: string;
let mic: VirtualMic | undefined;

/** A new API token of the admin on `agent`: the caller's scopes unless `scopes` narrows them. */
async function apiToken(agent: TestAgent, name: string, scopes?: string[]): Promise<string> {
  const res = await fetch(`${agent.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await agent.login()}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, scopes }),
  });
  assert.is(res.status, 201, await res.clone().text());
  return ((await res.json()) as { token: string }).token;
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const byHost = <T>(f: (agent: TestAgent, i: number) => T) => Object.fromEntries(HOSTS.map((h, i) => [h, f(agents[i]!, i)]));

/** An inventory of the five agents; `pinOf(i)` gives host i's pin (the right one unless a test says otherwise). */
function writeInventory(name: string, pinOf = (i: number) => pins[i]!): string {
  const file = join(tmp, name);
  writeFileSync(
    file,
    JSON.stringify(
      {
        all: {
          vars: { ansible_connection: 'local', ansible_python_interpreter: '/usr/bin/python3' },
          hosts: byHost((a, i) => ({
            device_agent_url: a.url.replace('http:', 'https:'),
            device_agent_token: tokens[i],
            device_agent_pin: pinOf(i),
            device_agent_cert: join(a.dir, 'tls/cert.pem'),
            device_agent_narrow_token: narrow[i],
          })),
        },
      },
      null,
      2,
    ),
  );
  return file;
}

/** A play over every host with the collection's connection options set once (module_defaults). */
const play = (tasks: string) => `
- hosts: all
  gather_facts: false
  module_defaults:
    group/deviceagent.fleet.agent:
      url: "{{ device_agent_url }}"
      token: "{{ device_agent_token }}"
      pin: "{{ device_agent_pin }}"
  tasks:
${tasks.replace(/^/gm, '    ')}
`;

function allOk(run: Awaited<ReturnType<Ansible['playbook']>>) {
  assert.is(run.code, 0, `ansible-playbook failed:\n${run.stdout}\n${run.stderr}`);
  for (const h of HOSTS) assert.is(run.json!.stats[h]!.failures, 0, h);
}

fleet.before(async () => {
  if (why) return;
  tmp = mkdtempSync(join(tmpdir(), 'da-ansible-'));
  const virtual = (mic = startVirtualMic());
  const [set] = await Promise.all([
    setUpAnsible(tmp),
    ...HOSTS.map(async (_, i) => {
      // The private PulseAudio paces capture in real time (the ALSA null device is not paced, so a
      // long recording would end before the stop that should end it).
      agents[i] = await startAgent({
        env: virtual.env,
        config: { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' }, audio: { device: 'pulse' } },
      });
    }),
  ]);
  ansible = set;
  for (const [i, agent] of agents.entries()) {
    // The credential an operator gives Ansible: an API token (the admin's scopes, so the token module works too).
    tokens[i] = await apiToken(agent, 'ansible');
    narrow[i] = await apiToken(agent, 'status-only', ['status']);
    // The agent's own pin (what `device-agent tls show` prints), not one the collection computed.
    pins[i] = ((await (await fetch(`${agent.url}/api/v1/tls`)).json()) as { spkiPin: string }).spkiPin;
  }
  inventory = writeInventory('inventory.json');
});

fleet.after(async () => {
  await Promise.all(agents.map((a) => a.cleanup()));
  await mic?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

it('status: each of the five hosts reads its own agent, pinned or by ca_path, changed false', async () => {
  const run = await ansible.playbook(
    play(`
- name: status
  deviceagent.fleet.status:
  register: st`) +
      `
- hosts: all
  gather_facts: false
  tasks:
    - name: status trusting a copy of the certificate
      deviceagent.fleet.status:
        url: "{{ device_agent_url }}"
        token: "{{ device_agent_token }}"
        ca_path: "{{ device_agent_cert }}"
`,
    inventory,
  );
  allOk(run);
  for (const task of ['status', 'status trusting a copy of the certificate']) {
    for (const h of HOSTS) {
      const r = run.task(task)[h]!;
      assert.is(r.changed, false);
      assert.is(r.status.hostname, hostname());
      assert.is(r.status.agent.version, VERSION);
      assert.type(r.status.memory.totalBytes, 'number');
    }
  }
  // Each host talked to its own agent: five agents, two status requests each.
  for (const a of agents)
    assert.is(
      a
        .output()
        .split('\n')
        .filter((l) => l.includes('GET /api/v1/devicestatus/get 200')).length,
      2,
    );
});

it('recording state stopped: ends a running recording (changed), then changed false', async () => {
  const run = await ansible.playbook(
    play(`
- name: start
  deviceagent.fleet.recording: { duration: 600, format: flac }
- name: stop
  deviceagent.fleet.recording: { state: stopped }
- name: stop again
  deviceagent.fleet.recording: { state: stopped }`),
    inventory,
  );
  allOk(run);
  for (const h of HOSTS) {
    assert.is(run.task('start')[h]!.recording.state, 'recording');
    const stopped = run.task('stop')[h]!;
    assert.is(stopped.changed, true);
    assert.is(stopped.recording.state, 'finished');
    assert.is(run.task('stop again')[h]!.changed, false);
  }
});

it('recording with dest: waits for the end and fetches a file identical to the one on the device', async () => {
  const run = await ansible.playbook(
    play(`
- name: record
  deviceagent.fleet.recording:
    duration: 1
    format: wav
    dest: "${tmp}/recordings/{{ inventory_hostname }}/"`),
    inventory,
  );
  allOk(run);
  const results = run.task('record');
  for (const [i, h] of HOSTS.entries()) {
    const r = results[h]!;
    assert.is(r.changed, true);
    assert.is(r.recording.state, 'finished');
    assert.match(r.recording.file, /^recordings\/.+\.wav$/);
    assert.is(r.dest, join(tmp, 'recordings', h, r.recording.file.split('/').pop()));
    const fetched = readFileSync(r.dest);
    assert.ok(fetched.equals(readFileSync(join(agents[i]!.baseDir, r.recording.file))), `${h}: the fetched file is the recorded one`);
    assert.is(r.sha256, sha256(fetched));
    assert.is(fetched.subarray(0, 4).toString(), 'RIFF');
  }
});

it('file: upload, upload again (changed false), same size other content (changed), fetch twice', async () => {
  const a = Buffer.alloc(100_000, 'a');
  const b = Buffer.alloc(100_000, 'b');
  writeFileSync(join(tmp, 'a.bin'), a);
  writeFileSync(join(tmp, 'b.bin'), b);
  const run = await ansible.playbook(
    play(`
- name: upload
  deviceagent.fleet.file: { path: payload.bin, src: "${tmp}/a.bin" }
- name: upload again
  deviceagent.fleet.file: { path: payload.bin, src: "${tmp}/a.bin" }
- name: upload other content of the same size
  deviceagent.fleet.file: { path: payload.bin, src: "${tmp}/b.bin" }
- name: fetch
  deviceagent.fleet.file: { path: payload.bin, state: fetched, dest: "${tmp}/fetched/{{ inventory_hostname }}/" }
- name: fetch again
  deviceagent.fleet.file: { path: payload.bin, state: fetched, dest: "${tmp}/fetched/{{ inventory_hostname }}/" }`),
    inventory,
  );
  allOk(run);
  for (const [i, h] of HOSTS.entries()) {
    assert.is(run.task('upload')[h]!.changed, true, h);
    assert.is(run.task('upload again')[h]!.changed, false, h);
    assert.is(run.task('upload again')[h]!.sha256, sha256(a));
    assert.is(run.task('upload other content of the same size')[h]!.changed, true, h);
    assert.ok(readFileSync(join(agents[i]!.baseDir, 'payload.bin')).equals(b));
    assert.is(run.task('fetch')[h]!.changed, true);
    assert.is(run.task('fetch again')[h]!.changed, false);
    assert.ok(readFileSync(join(tmp, 'fetched', h, 'payload.bin')).equals(b));
  }
  // Upload two: the first and the one of other content; the unchanged one compared by download.
  for (const agent of agents)
    assert.is(
      agent
        .output()
        .split('\n')
        .filter((l) => / POST \/api\/upload 200 /.test(l)).length,
      2,
    );
});

it('file directory and absent: made once, deleted once; a checked delete deletes nothing', async () => {
  const run = await ansible.playbook(
    play(`
- name: mkdir
  deviceagent.fleet.file: { path: incoming/2026, state: directory }
- name: mkdir again
  deviceagent.fleet.file: { path: incoming/2026, state: directory }
- name: upload into it
  deviceagent.fleet.file: { path: incoming/2026/a.bin, src: "${tmp}/a.bin" }
- name: delete in check mode
  deviceagent.fleet.file: { path: incoming, state: absent, recursive: true }
  check_mode: true
- name: delete
  deviceagent.fleet.file: { path: incoming, state: absent, recursive: true }
- name: delete again
  deviceagent.fleet.file: { path: incoming, state: absent, recursive: true }`),
    inventory,
  );
  allOk(run);
  for (const [i, h] of HOSTS.entries()) {
    assert.equal(
      ['mkdir', 'mkdir again', 'upload into it', 'delete in check mode', 'delete', 'delete again'].map((t) => run.task(t)[h]!.changed),
      [true, false, true, true, true, false],
      h,
    );
    assert.not.ok(existsSync(join(agents[i]!.baseDir, 'incoming')));
  }
});

it('check mode changes nothing: no upload, no recording, no fetched file, yet reports what would change', async () => {
  writeFileSync(join(tmp, 'c.bin'), 'other content\n');
  const before = await Promise.all(
    agents.map(async (a) =>
      (
        await fetch(`${a.url}/api/v1/audiofiles/audiorecordstatus`, { headers: { Authorization: `Bearer ${tokens[agents.indexOf(a)]}` } })
      ).json(),
    ),
  );
  const run = await ansible.playbook(
    play(`
- name: upload
  deviceagent.fleet.file: { path: payload.bin, src: "${tmp}/c.bin" }
- name: record
  deviceagent.fleet.recording: { duration: 1, dest: "${tmp}/check-recordings/" }
- name: fetch
  deviceagent.fleet.file: { path: payload.bin, state: fetched, dest: "${tmp}/check-fetched/{{ inventory_hostname }}.bin" }`),
    inventory,
    ['--check'],
  );
  allOk(run);
  for (const [i, h] of HOSTS.entries()) {
    assert.is(run.task('upload')[h]!.changed, true);
    assert.is(run.task('record')[h]!.changed, true);
    assert.is(run.task('fetch')[h]!.changed, true);
    assert.ok(readFileSync(join(agents[i]!.baseDir, 'payload.bin')).equals(Buffer.alloc(100_000, 'b')), `${h}: payload unchanged`);
    const now = await (
      await fetch(`${agents[i]!.url}/api/v1/audiofiles/audiorecordstatus`, { headers: { Authorization: `Bearer ${tokens[i]}` } })
    ).json();
    assert.equal(now, before[i], `${h}: no recording started`);
  }
  assert.not.ok(existsSync(join(tmp, 'check-recordings')));
  assert.not.ok(existsSync(join(tmp, 'check-fetched')));
});

it('token present twice: created once (its text hidden from the output), then changed false; absent revokes', async () => {
  mkdirSync(join(tmp, 'tokens'));
  const run = await ansible.playbook(
    play(`
- name: create
  deviceagent.fleet.token: { name: fleet-reader, username: admin, scopes: [status], expires_in_days: 30 }
  register: created
- name: keep
  ansible.builtin.copy: { content: "{{ created.token }}", dest: "${tmp}/tokens/{{ inventory_hostname }}.token", mode: "0600" }
  no_log: true
- name: again
  deviceagent.fleet.token: { name: fleet-reader, username: admin, scopes: [status] }`),
    inventory,
  );
  allOk(run);
  for (const [i, h] of HOSTS.entries()) {
    const created = run.task('create')[h]!;
    assert.is(created.changed, true);
    assert.is(created.censored, "the output has been hidden due to the fact that 'no_log: true' was specified for this result");
    assert.is(created.token, undefined);
    const again = run.task('again')[h]!;
    assert.is(again.changed, false);
    assert.is(again.token, undefined);
    assert.is(again.record.name, 'fleet-reader');
    assert.equal(again.record.scopes, ['status']);
    const text = readFileSync(join(tmp, 'tokens', `${h}.token`), 'utf8');
    assert.match(text, /^dat_[A-Za-z0-9_-]{43}$/);
    assert.not.match(run.stdout, text);
    const res = await fetch(`${agents[i]!.url}/api/v1/devicestatus/get`, { headers: { Authorization: `Bearer ${text}` } });
    assert.is(res.status, 200, `${h}: the new token works`);
    const list = (await (await fetch(`${agents[i]!.url}/api/v1/tokens`, { headers: { Authorization: `Bearer ${tokens[i]}` } })).json()) as {
      tokens: Array<{ name: string }>;
    };
    assert.is(list.tokens.filter((t) => t.name === 'fleet-reader').length, 1, `${h}: one token of that name`);
  }
  const revoke = await ansible.playbook(
    play(`
- name: revoke
  deviceagent.fleet.token: { name: fleet-reader, username: admin, state: absent }
- name: revoke again
  deviceagent.fleet.token: { name: fleet-reader, username: admin, state: absent }`),
    inventory,
  );
  allOk(revoke);
  for (const h of HOSTS) {
    assert.is(revoke.task('revoke')[h]!.changed, true);
    assert.is(revoke.task('revoke again')[h]!.changed, false);
  }
});

it('schedule present: stored once, then changed false (defaults filled in on both sides); check mode changes nothing; absent removes', async () => {
  const doc = '{ timeZone: UTC, enabled: false, windows: [{ start: "22:00", end: "02:00" }] }';
  const run = await ansible.playbook(
    play(`
- name: check
  deviceagent.fleet.schedule: { schedule: ${doc} }
  check_mode: true
- name: set
  deviceagent.fleet.schedule: { schedule: ${doc} }
- name: again
  deviceagent.fleet.schedule: { schedule: { timeZone: UTC, enabled: false, recording: { segmentSeconds: 300 }, windows: [{ start: "22:00", end: "02:00", days: [sun, mon, tue, wed, thu, fri, sat] }] } }
- name: clear
  deviceagent.fleet.schedule: { state: absent }
- name: clear again
  deviceagent.fleet.schedule: { state: absent }`),
    inventory,
  );
  allOk(run);
  for (const [i, h] of HOSTS.entries()) {
    assert.equal(
      ['check', 'set', 'again', 'clear', 'clear again'].map((t) => run.task(t)[h]!.changed),
      [true, true, false, true, false],
      h,
    );
    assert.is(run.task('set')[h]!.state.reason, 'disabled');
    const now = await (await fetch(`${agents[i]!.url}/api/v1/schedule`, { headers: { Authorization: `Bearer ${tokens[i]}` } })).json();
    assert.is(now.schedule, null, `${h}: removed`);
  }
});

it("a token without the scope fails the task with the agent's text", async () => {
  const run = await ansible.playbook(
    play(`
- name: status
  deviceagent.fleet.status:
    token: "{{ device_agent_narrow_token }}"
- name: record
  deviceagent.fleet.recording:
    token: "{{ device_agent_narrow_token }}"
    duration: 1`),
    inventory,
  );
  assert.is(run.code, 2, run.stdout + run.stderr);
  for (const h of HOSTS) {
    assert.is(run.task('status')[h]!.changed, false);
    assert.is(run.task('record')[h]!.msg, 'POST /api/v1/audiofiles/audiorecordstart: 403 insufficient scope: audio is required');
    assert.is(run.task('record')[h]!.http_status, 403);
  }
});

it('a wrong pin fails the host before the token is sent, naming both keys; a pin on plain http is refused', async () => {
  // Each host is given the next agent's pin: a real key, just not this device's.
  const wrong = writeInventory('wrong-pins.json', (i) => pins[(i + 1) % pins.length]!);
  const seen = agents.map((a) => a.output().length);
  const run = await ansible.playbook(
    play(`
- name: status
  deviceagent.fleet.status:
  ignore_errors: true
- name: status over plain http with a pin
  deviceagent.fleet.status:
    url: "{{ device_agent_url | replace('https:', 'http:') }}"`),
    wrong,
  );
  assert.is(run.code, 2, run.stdout + run.stderr);
  for (const [i, h] of HOSTS.entries()) {
    assert.is(run.task('status over plain http with a pin')[h]!.msg, `pin and ca_path need an https:// url, not ${agents[i]!.url}`);
  }
  const results = run.task('status');
  for (const [i, h] of HOSTS.entries()) {
    assert.is(results[h]!.failed, true);
    assert.is(
      results[h]!.msg,
      `${agents[i]!.url.replace('http:', 'https:')}: the device presents the public key ${pins[i]}, ` +
        `not the pinned ${pins[(i + 1) % pins.length]}`,
    );
    assert.is(agents[i]!.output().slice(seen[i]).includes('/api/v1/devicestatus/get'), false, `${h}: no request reached the agent`);
  }
});

it('ansible-doc renders every module; ansible-test sanity and validate-modules pass', async () => {
  for (const m of ['status', 'recording', 'file', 'token', 'schedule']) {
    const { stdout } = await runP('ansible-doc', ['-t', 'module', `deviceagent.fleet.${m}`], { env: ansible.env });
    assert.match(stdout, `> DEVICEAGENT.FLEET.${m.toUpperCase()}`);
    assert.match(stdout, 'EXAMPLES:');
    assert.match(stdout, 'RETURN VALUES:');
  }
  const collection = join(tmp, 'sanity/ansible_collections/deviceagent/fleet');
  cpSync(COLLECTION_SRC, collection, { recursive: true });
  const env = { ...ansible.env, PATH: `/usr/bin:/bin:${process.env.PATH}` };
  // Debian's ansible-core runs these offline; the rest install pinned tools from PyPI into a venv.
  const skipped = SANITY_NEEDS_PYPI.flatMap((t) => ['--skip-test', t]);
  const sanity = await runP('ansible-test', ['sanity', '--python', '3.11', ...skipped], { cwd: collection, env }).catch((e) => e);
  assert.is(sanity.code ?? 0, 0, `${sanity.stdout}${sanity.stderr}`);
  assert.match(sanity.stdout, 'Running sanity test "compile" on Python 3.11');
  // validate-modules (DOCUMENTATION against the argument spec) is ansible-test's script run with
  // Debian's python3-voluptuous; the errors the collection's ignore file lists are left out as ansible-test does.
  const ignored = new Set(
    readFileSync(join(collection, 'tests/sanity/ignore-2.14.txt'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ').slice(0, 2).join(' ').replace('validate-modules:', '')),
  );
  const { stdout } = await runP(
    '/usr/bin/python3',
    [
      VALIDATE_MODULES,
      '--format',
      'json',
      '--arg-spec',
      '--collection',
      'ansible_collections/deviceagent/fleet',
      '--collection-version',
      '0.1.0',
      ...['status', 'recording', 'file', 'token', 'schedule'].map((m) => `plugins/modules/${m}.py`),
    ],
    { cwd: collection, env: { ...env, ANSIBLE_COLLECTIONS_PATH: join(tmp, 'sanity') } },
  ).catch((e) => e);
  const errors = Object.entries(JSON.parse(stdout) as Record<string, { errors: Array<{ code: string; msg: string }> }>)
    .flatMap(([file, r]) => r.errors.map((e) => `${file} ${e.code}`))
    .filter((e) => !ignored.has(e));
  assert.equal(errors, []);
});

fleet.run();
