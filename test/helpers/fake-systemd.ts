// Runs the agent under test/helpers/fake-systemd.c: the service manager's side of sd_notify
// (a unix datagram socket the test binds) and of the file-descriptor store.
import { spawn, type ChildProcess } from 'node:child_process';
import { agentCommand, compiledHelper } from './agent.ts';
import { eventually } from './proc.ts';

export interface Message {
  pid: number;
  text: string;
  /** "address port" of a descriptor that came along. */
  fd?: string;
}

export interface FakeSystemd {
  child: ChildProcess;
  /** Datagrams received so far. */
  messages(): Message[];
  /** Exit codes and signals of the service, in order ({exit} or {signal}). */
  ends(): Array<{ exit?: number; signal?: number }>;
  /** Everything printed: the helper's lines and the agent's log. */
  output(): string;
  /** A line to the helper: "signal N", "restart", "quit". */
  command(line: string): void;
  /** Waits for a message matching `test`, at or after index `from`; returns it. */
  waitFor(test: (m: Message) => boolean, from?: number, ms?: number): Promise<Message>;
  quit(): Promise<void>;
}

/** Starts `device-agent serve --config FILE` under the helper, notify socket at `socket`. */
export function underFakeSystemd(socket: string, configFile: string, env: Record<string, string> = {}): FakeSystemd {
  const { cmd, args } = agentCommand();
  const child = spawn(compiledHelper('fake-systemd'), [socket, cmd, ...args, 'serve', '--config', configFile], {
    env: { ...process.env, DEVICE_AGENT_CONFIG: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const parsed = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Message & { exit?: number; signal?: number });
  const messages = () => parsed().filter((m) => 'text' in m) as Message[];
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    child,
    messages,
    ends: () => parsed().filter((m) => !('text' in m)),
    output: () => out,
    command: (line) => {
      child.stdin!.write(line + '\n');
    },
    async waitFor(test, from = 0, ms = 15_000) {
      const found = () => messages().slice(from).find(test);
      if (!(await eventually(() => found() !== undefined, ms))) throw new Error(`no such message; got:\n${out}`);
      return found()!;
    },
    async quit() {
      if (child.exitCode === null) {
        child.stdin!.end('quit\n');
        await exited;
      }
    },
  };
}
