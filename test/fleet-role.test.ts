// The role deviceagent.fleet.agent applied by ansible-playbook to a throwaway Debian 12 root:
// installs the .deb, writes a drop-in, reloads the running agent, which then answers on the
// new setting, creates a user and an API token through the device's CLI, reads the TLS pin,
// sets the outbox and the MQTT link with their secrets in 0600 files; a third run changes nothing.
// Why a root and not the systemd VM: docs/fleet.md, "How the role is tested".
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cannotRunAnsible } from './helpers/ansible.ts';
import { cannotChroot, startInstalled, type DebianRoot } from './helpers/debian-root.ts';
import { changedTasks, roleHost, type RoleHost } from './helpers/role-host.ts';
import { jsonPost } from './helpers/http.ts';
import { VERSION } from './helpers/packages.ts';

const CONFIG = '/etc/device-agent/config.json';
const USER = { username: 'fleet', password: 'fleet password 1' };
const TOKEN = { name: 'ansible', user: 'fleet', scopes: ['status', 'audio'], expires_days: 30 };
// The outbox and MQTT link variables; their secrets must reach only their files (mode 0600).
const OUTBOX_SECRET = 'outbox-bearer-7f3c1a9e';
const MQTT_PASSWORD = 'mqtt-password-52b8d0c4';
const LINKS = {
  device_agent_outbox: {
    target: { type: 'http', url: 'http://127.0.0.1:9/{deviceId}/{path}' },
    maxBackoffSeconds: 600,
  },
  device_agent_outbox_secret: OUTBOX_SECRET,
  device_agent_mqtt: { url: 'mqtt://127.0.0.1:9', username: 'dev-1', topicPrefix: 'fleet', commandScopes: ['status'] },
  device_agent_mqtt_password: MQTT_PASSWORD,
};
const role = suite('role deviceagent.fleet.agent in a Debian 12 root');
const why = cannotChroot() ?? cannotRunAnsible();
const it = why ? role.skip : role;
if (why) console.log(`  role tests skipped: ${why}`);

let host: RoleHost | undefined;
let tmp: string;
let root: DebianRoot;
let agent: { child: ChildProcess; url: string } | undefined;
let token: string;

/** Applies the role with these variables. */
const apply = (vars: Record<string, unknown>) => host!.apply(vars);

/** Lifetime of a login token of the role's user: exp - iat, set by tokenTtlSeconds. */
async function tokenLifetime(): Promise<number> {
  const res = await jsonPost(`${agent!.url}/api/v1/agentusers/loginusertoagent`, USER);
  assert.is(res.status, 200, await res.clone().text());
  const { token } = (await res.json()) as { token: string };
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iat: number; exp: number };
  return claims.exp - claims.iat;
}

role.before(async () => {
  if (why) return;
  host = await roleHost('fleet-role');
  ({ tmp, root } = host);
});

role.after(async () => {
  await host?.remove(agent);
});

it('installs the .deb, writes the drop-in, creates the user and an API token through the CLI', async () => {
  const run = await apply({
    device_agent_dropins: { '50-fleet': { host: '127.0.0.1', port: 0 } },
    device_agent_users: [{ name: USER.username, password: USER.password, role: 'operator' }],
    device_agent_tokens: [TOKEN],
    device_agent_token_dir: join(tmp, 'tokens'),
    device_agent_reload_command: 'true', // nothing runs yet
  });
  assert.equal(changedTasks(run), [
    'Copy the package to the device',
    'Install the package file',
    'Write the config.d drop-ins',
    'Create missing users',
    'Create missing API tokens',
    'Make the token directory on the controller',
    'Write the new tokens on the controller',
    'Reload device-agent with the given command',
  ]);
  assert.not.match(run.stdout, /dat_/, 'no token text in the output');
  const tokenFile = join(tmp, 'tokens', 'device-fleet-ansible.token');
  assert.is(statSync(tokenFile).mode & 0o777, 0o600);
  token = readFileSync(tokenFile, 'utf8').trim();
  assert.match(token, /^dat_[A-Za-z0-9_-]{43}$/);
  assert.match((await root.exec(['device-agent', 'token', 'list', '--user', 'fleet'])).stdout, /\tansible\tfleet\tstatus,audio\t/);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template
  const { stdout } = await root.exec(['dpkg-query', '-W', '-f=${Status} ${Version}', 'device-agent']);
  assert.is(stdout, `install ok installed ${VERSION}`);
  assert.is(readFileSync(root.file('/etc/device-agent/config.d/50-fleet.json'), 'utf8'), '{\n    "host": "127.0.0.1",\n    "port": 0\n}\n');
  assert.match((await root.exec(['device-agent', 'user', 'list'])).stdout, /^fleet\toperator\t-\t/m);
  assert.is(run.task('deviceagent.fleet.agent : Keep the TLS pin (fact device_agent_tls_pin)').device!.skipped, true, 'no certificate yet');
  // The user's password is the role's: the agent started on the merged config logs it in.
  agent = await startInstalled(root, CONFIG);
  assert.is(await tokenLifetime(), 3600);
  // The token the role made works with its scopes, and only those.
  const status = await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: { Authorization: `Bearer ${token}` } });
  assert.is(status.status, 200);
  const list = await fetch(`${agent.url}/api/v1/files/list`, { headers: { Authorization: `Bearer ${token}` } });
  assert.is(list.status, 403);
});

it('a changed drop-in reloads the running agent, which answers on the new setting; a stray drop-in goes; the outbox and MQTT link are set, their secrets in 0600 files', async () => {
  writeFileSync(root.file('/etc/device-agent/config.d/10-stray.json'), '{"tokenTtlSeconds": 60}\n');
  const run = await apply({
    ...LINKS,
    device_agent_dropins: { '50-fleet': { host: '127.0.0.1', port: 0, tokenTtlSeconds: 120 } },
    device_agent_dropins_exclusive: true,
    device_agent_users: [{ name: USER.username, password: USER.password, role: 'operator' }],
    device_agent_tokens: [TOKEN],
    device_agent_token_dir: join(tmp, 'tokens'),
    device_agent_reload_command: `kill -HUP ${agent!.child.pid}`,
  });
  assert.equal(changedTasks(run), [
    'Write the config.d drop-ins',
    'Write the outbox secret',
    'Write the outbox drop-in',
    'Write the MQTT password',
    'Write the MQTT drop-in',
    'Remove drop-ins the role did not write',
    'Reload device-agent with the given command',
  ]);
  assert.not.ok(existsSync(root.file('/etc/device-agent/config.d/10-stray.json')));
  // The agent made its certificate at its first start: the role now reads its pin over the connection.
  const facts = run.task('deviceagent.fleet.agent : Keep the TLS pin (fact device_agent_tls_pin)').device!.ansible_facts;
  const tls = (await (await fetch(`${agent!.url}/api/v1/tls`)).json()) as { spkiPin: string };
  assert.is(facts.device_agent_tls_pin, tls.spkiPin);
  // SIGHUP is handled after the signal arrives: wait for the new lifetime, whatever the machine's speed.
  let lifetime = await tokenLifetime();
  for (let i = 0; i < 100 && lifetime !== 120; i++) {
    await new Promise((r) => setTimeout(r, 100));
    lifetime = await tokenLifetime();
  }
  assert.is(lifetime, 120);
  // The drop-ins name the secret files; the secrets are only in those files, the service user's, 0600.
  const dropin = (name: string) => JSON.parse(readFileSync(root.file(`/etc/device-agent/config.d/${name}`), 'utf8'));
  assert.equal(dropin('90-outbox.json'), {
    outbox: {
      target: { type: 'http', url: 'http://127.0.0.1:9/{deviceId}/{path}', tokenFile: '/etc/device-agent/outbox.secret' },
      maxBackoffSeconds: 600,
    },
  });
  assert.equal(dropin('90-mqtt.json'), {
    mqtt: {
      url: 'mqtt://127.0.0.1:9',
      username: 'dev-1',
      topicPrefix: 'fleet',
      commandScopes: ['status'],
      passwordFile: '/etc/device-agent/mqtt.password',
    },
  });
  const owner = (await root.exec(['stat', '-c', '%U:%G %a', '/etc/device-agent/outbox.secret', '/etc/device-agent/mqtt.password'])).stdout;
  assert.is(owner, 'device-agent:device-agent 600\ndevice-agent:device-agent 600\n');
  assert.is(readFileSync(root.file('/etc/device-agent/outbox.secret'), 'utf8'), `${OUTBOX_SECRET}\n`);
  assert.is(readFileSync(root.file('/etc/device-agent/mqtt.password'), 'utf8'), `${MQTT_PASSWORD}\n`);
  for (const secret of [OUTBOX_SECRET, MQTT_PASSWORD]) {
    assert.not.ok(run.stdout.includes(secret) || run.stderr.includes(secret), 'no secret in ansible-playbook output');
    const merged = (await root.exec(['device-agent', 'config', 'show', '--config', CONFIG])).stdout;
    assert.not.ok(merged.includes(secret), 'no secret in the merged config');
    for (const f of ['config.json', 'config.d/50-fleet.json', 'config.d/90-outbox.json', 'config.d/90-mqtt.json']) {
      assert.not.ok(readFileSync(root.file(`/etc/device-agent/${f}`), 'utf8').includes(secret), `no secret in ${f}`);
    }
  }
  // The reloaded agent runs the outbox (SIGHUP applies it: wait for it as for the lifetime above).
  const login = (await (await jsonPost(`${agent!.url}/api/v1/agentusers/loginusertoagent`, USER)).json()) as { token: string };
  const outbox = async () =>
    (await (await fetch(`${agent!.url}/api/v1/outbox`, { headers: { Authorization: `Bearer ${login.token}` } })).json()) as {
      enabled: boolean;
      target?: { type: string };
    };
  let state = await outbox();
  for (let i = 0; i < 100 && !state.enabled; i++) {
    await new Promise((r) => setTimeout(r, 100));
    state = await outbox();
  }
  assert.is(state.enabled, true, JSON.stringify(state));
  assert.is(state.target?.type, 'http');
});

it('applied again with the same variables it changes nothing and reloads nothing', async () => {
  const run = await apply({
    device_agent_dropins: { '50-fleet': { host: '127.0.0.1', port: 0, tokenTtlSeconds: 120 } },
    device_agent_dropins_exclusive: true,
    device_agent_users: [{ name: USER.username, password: 'another password', role: 'operator' }],
    ...LINKS,
    device_agent_tokens: [TOKEN],
    device_agent_token_dir: join(tmp, 'tokens'),
    device_agent_reload_command: `kill -HUP ${agent!.child.pid}`,
  });
  assert.equal(changedTasks(run), []);
  assert.is(run.json!.stats.device!.changed, 0);
  assert.is(await tokenLifetime(), 120, 'an existing user keeps the password it has');
});

role.run();
