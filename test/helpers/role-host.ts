// A throwaway Debian 12 root that the role deviceagent.fleet.agent is applied to through
// ansible-core (test/fleet-role.test.ts, test/fleet-role-links.test.ts): the packages
// built, the collection installed, an inventory naming the root as host `device`.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { setUpAnsible, type Ansible, type PlaybookRun } from './ansible.ts';
import { freshRoot, type DebianRoot } from './debian-root.ts';
import { buildPackages, debPath } from './packages.ts';

const PLAYBOOK = `
- hosts: all
  gather_facts: false
  roles:
    - role: deviceagent.fleet.agent
`;

export interface RoleHost {
  /** The test's own directory (vars files, token files). */
  tmp: string;
  ansible: Ansible;
  root: DebianRoot;
  /** Applies the role with `vars` (an extra-vars file: JSON keeps their types) and the built .deb; asserts exit 0. */
  apply(vars: Record<string, unknown>): Promise<PlaybookRun>;
  /** Stops `agent` (if it still runs) and removes the root and the directory. */
  remove(agent?: { child: ChildProcess }): Promise<void>;
}

/** Builds the packages, installs the collection and makes the root, all at once; `name` prefixes the directory and the log lines. */
export async function roleHost(name: string): Promise<RoleHost> {
  const t = Date.now();
  const tmp = mkdtempSync(join(tmpdir(), `da-${name}-`));
  // uvu says nothing of a hook that throws (its cases just do not run): the error is printed here.
  const [ansible, root] = await Promise.all([setUpAnsible(tmp), freshRoot(['python3', 'python3-apt']), buildPackages()]).catch(
    (err: unknown) => {
      console.error(`${name}: setting up failed:`, err);
      rmSync(tmp, { recursive: true, force: true });
      throw err;
    },
  );
  console.log(`  (${name}: packages, collection and Debian root ready in ${((Date.now() - t) / 1000).toFixed(1)} s)`);
  const inventory = join(tmp, 'inventory.json');
  writeFileSync(
    inventory,
    JSON.stringify({
      all: {
        hosts: { device: { ansible_connection: 'chroot_ns', chroot_root: root.path, ansible_python_interpreter: '/usr/bin/python3' } },
      },
    }),
  );
  return {
    tmp,
    ansible,
    root,
    async apply(vars) {
      const file = join(tmp, 'vars.json');
      writeFileSync(file, JSON.stringify({ device_agent_deb: debPath('amd64'), ...vars }));
      const started = Date.now();
      const run = await ansible.playbook(PLAYBOOK, inventory, ['-e', `@${file}`]);
      console.log(`  (${name}: ansible-playbook ran in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
      assert.is(run.code, 0, `ansible-playbook failed:\n${run.stdout}\n${run.stderr}`);
      return run;
    },
    async remove(agent) {
      if (agent && agent.child.exitCode === null) {
        const exited = new Promise((r) => agent.child.once('exit', r));
        agent.child.kill('SIGTERM');
        await exited;
      }
      root.remove();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** The names of the role's tasks that changed something on the host. */
export const changedTasks = (run: PlaybookRun): string[] =>
  run
    .json!.plays.flatMap((p) => p.tasks)
    .filter((t) => t.hosts.device?.changed)
    .map((t) => t.task.name.replace('deviceagent.fleet.agent : ', ''));
