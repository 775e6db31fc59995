// The role deviceagent.fleet.agent's outbox and MQTT variables (docs/fleet.md,
// integrations/ansible/README.md) in a throwaway Debian 12 root, as test/fleet-role.test.ts
// applies the role: an `s3` outbox target gets its secret as `secretAccessKeyFile` (a 0600 file
// of the service user's; `config show` names the file, never the secret), and
// `device_agent_outbox` / `device_agent_mqtt` set back to null remove the setting: the drop-ins
// and secret files go, the reloaded agent runs neither, and a second run changes nothing.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cannotRunAnsible } from './helpers/ansible.ts';
import { cannotChroot, startInstalled, type DebianRoot } from './helpers/debian-root.ts';
import { changedTasks, roleHost, type RoleHost } from './helpers/role-host.ts';
import { jsonPost } from './helpers/http.ts';
import { until } from './helpers/proc.ts';

const CONFIG = '/etc/device-agent/config.json';
const USER = { username: 'links', password: 'links password 1' };
const S3_SECRET = 's3-secret-key-0b7e55d2a1';
const MQTT_PASSWORD = 'mqtt-password-9d41c7e3';
const OUTBOX = {
  target: {
    type: 's3',
    endpoint: 'http://127.0.0.1:9',
    region: 'eu-west-1',
    bucket: 'field-recordings',
    prefix: '{deviceId}/',
    accessKeyId: 'AKIAEXAMPLE',
  },
};
const MQTT = { url: 'mqtt://127.0.0.1:9', username: 'dev-1' };
const COMMON = {
  device_agent_dropins: { '50-fleet': { host: '127.0.0.1', port: 0 } },
  device_agent_users: [{ name: USER.username, password: USER.password, role: 'operator' }],
};

const role = suite('role deviceagent.fleet.agent: outbox and MQTT variables');
const why = cannotChroot() ?? cannotRunAnsible();
const it = why ? role.skip : role;
if (why) console.log(`  role tests skipped: ${why}`);

let host: RoleHost | undefined;
let root: DebianRoot;
let agent: { child: ChildProcess; url: string } | undefined;

/** Applies the role with these variables over the common ones. */
const apply = (vars: Record<string, unknown>) => host!.apply({ ...COMMON, ...vars });

const etc = (name: string) => root.file(`/etc/device-agent/${name}`);
const configShow = async () => JSON.parse((await root.exec(['device-agent', 'config', 'show', '--config', CONFIG])).stdout);

/** GET `path` of the running agent as the role's user. */
async function get(path: string): Promise<Record<string, unknown>> {
  const login = await jsonPost(`${agent!.url}/api/v1/agentusers/loginusertoagent`, USER);
  assert.is(login.status, 200);
  const { token } = (await login.json()) as { token: string };
  const res = await fetch(`${agent!.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  assert.is(res.status, 200, path);
  return (await res.json()) as Record<string, unknown>;
}

role.before(async () => {
  if (why) return;
  host = await roleHost('fleet-role-links');
  root = host.root;
});

role.after(async () => {
  await host?.remove(agent);
});

it('an s3 target: the secret in a 0600 file named secretAccessKeyFile; config show names the file, never the secret', async () => {
  const run = await apply({
    device_agent_outbox: OUTBOX,
    device_agent_outbox_secret: S3_SECRET,
    device_agent_mqtt: MQTT,
    device_agent_mqtt_password: MQTT_PASSWORD,
    device_agent_reload_command: 'true', // nothing runs yet
  });
  assert.equal(JSON.parse(readFileSync(etc('config.d/90-outbox.json'), 'utf8')), {
    outbox: { target: { ...OUTBOX.target, secretAccessKeyFile: '/etc/device-agent/outbox.secret' } },
  });
  const modes = (await root.exec(['stat', '-c', '%n %U:%G %a', '/etc/device-agent/outbox.secret', '/etc/device-agent/mqtt.password']))
    .stdout;
  assert.is(
    modes,
    '/etc/device-agent/outbox.secret device-agent:device-agent 600\n/etc/device-agent/mqtt.password device-agent:device-agent 600\n',
  );
  assert.is(readFileSync(etc('outbox.secret'), 'utf8'), `${S3_SECRET}\n`);
  const shown = await configShow();
  assert.is(shown.outbox.target.secretAccessKeyFile, '/etc/device-agent/outbox.secret');
  assert.is(shown.outbox.target.tokenFile, undefined, 'an s3 target names no tokenFile');
  assert.is(shown.mqtt.passwordFile, '/etc/device-agent/mqtt.password');
  const merged = JSON.stringify(shown);
  for (const secret of [S3_SECRET, MQTT_PASSWORD]) {
    assert.not.ok(merged.includes(secret), 'no secret in config show');
    assert.not.ok(run.stdout.includes(secret) || run.stderr.includes(secret), 'no secret in ansible-playbook output');
    for (const f of ['config.json', 'config.d/50-fleet.json', 'config.d/90-outbox.json', 'config.d/90-mqtt.json'])
      assert.not.ok(readFileSync(etc(f), 'utf8').includes(secret), `no secret in ${f}`);
  }
  // The installed agent reads the file (as its service user) and runs the outbox and the link.
  agent = await startInstalled(root, CONFIG);
  const outbox = await get('/api/v1/outbox');
  assert.equal(outbox.target, { type: 's3', endpoint: 'http://127.0.0.1:9', bucket: 'field-recordings' });
  assert.not.ok(JSON.stringify(outbox).includes(S3_SECRET));
  assert.is((await get('/api/v1/mqtt')).enabled, true);
});

it('device_agent_outbox and device_agent_mqtt set back to null: drop-ins and secret files removed, the reloaded agent runs neither', async () => {
  const run = await apply({
    device_agent_outbox: null,
    device_agent_outbox_secret: S3_SECRET, // a secret left in the inventory does not keep its file
    device_agent_mqtt: null,
    device_agent_mqtt_password: MQTT_PASSWORD,
    device_agent_reload_command: `kill -HUP ${agent!.child.pid}`,
  });
  assert.equal(changedTasks(run), ['Remove the outbox and MQTT files that are not set', 'Reload device-agent with the given command']);
  for (const f of ['config.d/90-outbox.json', 'outbox.secret', 'config.d/90-mqtt.json', 'mqtt.password'])
    assert.not.ok(existsSync(etc(f)), `${f} removed`);
  const shown = await configShow();
  assert.is(shown.outbox, null);
  assert.is(shown.mqtt, null);
  // SIGHUP is handled after the signal arrives: wait for it, whatever the machine's speed.
  await until('the outbox off', async () => (await get('/api/v1/outbox')).enabled === false);
  assert.equal(await get('/api/v1/outbox'), { enabled: false, state: 'off' });
  await until('the link off', async () => (await get('/api/v1/mqtt')).enabled === false);
  assert.equal(await get('/api/v1/mqtt'), { enabled: false });
});

it('applied again with the variables still null it changes nothing and reloads nothing', async () => {
  const run = await apply({
    device_agent_outbox: null,
    device_agent_mqtt: null,
    device_agent_reload_command: `kill -HUP ${agent!.child.pid}`,
  });
  assert.equal(changedTasks(run), []);
  assert.is(run.json!.stats.device!.changed, 0);
});

role.run();
