// Real brokers for the MQTT link's tests: Mosquitto (MQTT 5 and 3.1.1) and nats-server's MQTT
// listener (3.1.1 only), each on a free loopback port with its own temp config, and
// mosquitto_sub / mosquitto_pub / mosquitto_rr as the other side.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './http.ts';
import { until } from './proc.ts';

export interface Broker {
  port: number;
  url: string;
  /** The broker's log so far (Mosquitto: every connection attempt is a line). */
  log(): string;
  start(): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<void>;
  cleanup(): Promise<void>;
}

function waitListening(port: number): Promise<void> {
  return until(`a broker on port ${port}`, async () => {
    const { connect } = await import('node:net');
    return new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
  }).then(() => {});
}

function broker(port: number, dir: string, argv: () => [string, string[]], logFile: string): Broker {
  let child: ChildProcess | undefined;
  const b: Broker = {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    log: () => {
      try {
        return readFileSync(logFile, 'utf8');
      } catch {
        return '';
      }
    },
    async start() {
      const [cmd, args] = argv();
      child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      await waitListening(port);
    },
    async stop(signal = 'SIGTERM') {
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill(signal);
      await exited;
    },
    async cleanup() {
      await b.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return b;
}

/** Mosquitto on a free port; `extra` lines are added to its config (a password file, an ACL, TLS). */
export async function mosquitto(opts: { extra?: string[]; started?: boolean } = {}): Promise<Broker> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'da-mosquitto-'));
  const logFile = join(dir, 'mosquitto.log');
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      opts.extra?.some((l) => l.startsWith('password_file')) ? 'allow_anonymous false' : 'allow_anonymous true',
      'persistence false',
      // Run as root (CI), Mosquitto would switch to user mosquitto, who cannot read the test's 0700 directory.
      ...(process.getuid?.() === 0 ? ['user root'] : []),
      `log_dest file ${logFile}`,
      'log_type all',
      ...(opts.extra ?? []),
      '',
    ].join('\n'),
  );
  const b = broker(port, dir, () => ['mosquitto', ['-c', conf]], logFile);
  if (opts.started !== false) await b.start();
  return b;
}

/** nats-server with its MQTT listener (3.1.1 only; it needs JetStream). */
export async function natsMqtt(): Promise<Broker> {
  const [client, port] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'da-nats-'));
  const conf = join(dir, 'nats.conf');
  writeFileSync(
    conf,
    `listen: 127.0.0.1:${client}\nserver_name: da_test\njetstream { store_dir: "${join(dir, 'js')}" }\nmqtt { listen: 127.0.0.1:${port} }\n`,
  );
  const b = broker(port, dir, () => ['nats-server', ['-c', conf, '-l', join(dir, 'nats.log')]], join(dir, 'nats.log'));
  await b.start();
  return b;
}

export interface Message {
  topic: string;
  payload: string;
  retained: boolean;
}

/** mosquitto_sub on `topics`, collecting what arrives (retained ones included). */
export function subscribe(port: number, topics: string[], version: '5' | 'mqttv311' = '5') {
  const v = version === '5' ? 'mqttv5' : 'mqttv311';
  const child = spawn(
    'mosquitto_sub',
    ['-h', '127.0.0.1', '-p', String(port), '-V', v, '-F', '%r\t%t\t%p', ...topics.flatMap((t) => ['-t', t])],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const messages: Message[] = [];
  let rest = '';
  child.stdout.on('data', (d: Buffer) => {
    rest += d.toString();
    const lines = rest.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const [r, topic, ...p] = line.split('\t');
      messages.push({ retained: r === '1', topic: topic ?? '', payload: p.join('\t') });
    }
  });
  return {
    messages,
    /** The first message on `topic` (after `from` messages) that `match` accepts. */
    next(topic: string, match: (m: Message) => boolean = () => true, ms = 20_000, from = 0) {
      return until(`a message on ${topic}`, () => messages.slice(from).find((m) => m.topic === topic && match(m)), ms);
    },
    close() {
      child.kill();
    },
  };
}

/** mosquitto_pub; `args` adds options (-r retain, -D properties, -V; `-f FILE` sends a file instead of `message`). */
export function pub(port: number, topic: string, message: string, args: string[] = []): Promise<void> {
  const payload = args.includes('-f') ? [] : ['-m', message];
  return new Promise((resolve, reject) =>
    execFile('mosquitto_pub', ['-h', '127.0.0.1', '-p', String(port), '-q', '1', '-t', topic, ...payload, ...args], (err) =>
      err ? reject(err) : resolve(),
    ),
  );
}

/** mosquitto_rr (MQTT 5 request/response): the reply's payload, or undefined after `waitS`. */
export function request(
  port: number,
  topic: string,
  message: string,
  responseTopic: string,
  correlation = 'c-1',
  waitS = 10,
): Promise<string | undefined> {
  return new Promise((resolve) =>
    execFile(
      'mosquitto_rr',
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-V',
        'mqttv5',
        '-t',
        topic,
        '-e',
        responseTopic,
        '-m',
        message,
        '-W',
        String(waitS),
        '-D',
        'publish',
        'correlation-data',
        correlation,
      ],
      (err, stdout) => resolve(err ? undefined : stdout.trim()),
    ),
  );
}

/** mosquitto_passwd: a password file with one user. */
export function passwordFile(file: string, user: string, password: string): void {
  execFileSync('mosquitto_passwd', ['-b', '-c', file, user, password], { stdio: 'ignore' });
}
