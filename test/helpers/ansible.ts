// Runs Debian's ansible-core against the collection in integrations/ansible: builds it with
// ansible-galaxy, installs the tarball into a temp collections path, runs ansible-playbook
// with the tests' JSON callback (helpers/ansible/callback/json_results.py) and hands back each task's result per host.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './agent.ts';

const run = promisify(execFile);
export const COLLECTION_SRC = join(ROOT, 'integrations/ansible');

/** Why this machine cannot run the Ansible tests, or undefined when it can. */
export function cannotRunAnsible(): string | undefined {
  for (const tool of ['/usr/bin/ansible-playbook', '/usr/bin/ansible-galaxy']) {
    if (!existsSync(tool)) return `needs ${tool} (apt-get install ansible-core)`;
  }
  return undefined;
}

export interface Ansible {
  /** The collections path holding the installed deviceagent.fleet. */
  collections: string;
  /** The built tarball. */
  tarball: string;
  env: Record<string, string>;
  /** Runs a playbook (YAML text) with an inventory file; never rejects. */
  playbook(yaml: string, inventory: string, args?: string[]): Promise<PlaybookRun>;
}

export interface PlaybookRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The json callback's document (undefined when ansible-playbook printed none). */
  json?: {
    plays: Array<{ tasks: Array<{ task: { name: string }; hosts: Record<string, Record<string, any>> }> }>;
    stats: Record<string, Record<string, number>>;
  };
  /** Results of the task named `name`, per host. */
  task(name: string): Record<string, Record<string, any>>;
}

/** Builds the collection from the repository and installs it under `dir`. */
export async function setUpAnsible(dir: string): Promise<Ansible> {
  const collections = join(dir, 'collections');
  const out = join(dir, 'build');
  mkdirSync(out, { recursive: true });
  await run('ansible-galaxy', ['collection', 'build', COLLECTION_SRC, '--output-path', out, '--force']);
  const tarball = join(out, 'deviceagent-fleet-0.1.0.tar.gz');
  await run('ansible-galaxy', ['collection', 'install', tarball, '-p', collections, '--force']);
  const config = join(dir, 'ansible.cfg');
  writeFileSync(config, '[defaults]\n');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ANSIBLE_CONFIG: config, // nothing from the machine's /etc/ansible or a cwd ansible.cfg
    ANSIBLE_COLLECTIONS_PATH: collections,
    ANSIBLE_STDOUT_CALLBACK: 'json_results',
    ANSIBLE_CALLBACK_PLUGINS: join(ROOT, 'test/helpers/ansible/callback'),
    ANSIBLE_CONNECTION_PLUGINS: join(ROOT, 'test/helpers/ansible/connection'),
    ANSIBLE_LOCAL_TEMP: join(dir, 'tmp-local'),
    ANSIBLE_REMOTE_TEMP: join(dir, 'tmp-remote'),
    ANSIBLE_RETRY_FILES_ENABLED: '0',
    ANSIBLE_NOCOLOR: '1',
    ANSIBLE_PYTHON_INTERPRETER: '/usr/bin/python3',
  };
  let n = 0;
  return {
    collections,
    tarball,
    env,
    async playbook(yaml, inventory, args = []) {
      const file = join(dir, `play-${++n}.yml`);
      writeFileSync(file, yaml);
      const child = spawn('ansible-playbook', ['-i', inventory, '-f', '5', ...args, file], {
        env,
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => {
        stdout += d;
      });
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      const code = await new Promise<number | null>((r) => child.on('close', r));
      let json: PlaybookRun['json'];
      try {
        json = JSON.parse(stdout.slice(stdout.indexOf('{')));
      } catch {
        json = undefined; // the assertions below report stdout and stderr
      }
      return {
        code,
        stdout,
        stderr,
        json,
        task(name) {
          const tasks = json?.plays.flatMap((p) => p.tasks).filter((t) => t.task.name === name) ?? [];
          if (tasks.length !== 1) throw new Error(`task ${name}: ${tasks.length} results\n${stdout}\n${stderr}`);
          return tasks[0]!.hosts;
        },
      };
    },
  };
}
