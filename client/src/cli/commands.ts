// The commands that talk to one device through its profile's credential.
import { createWriteStream, mkdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { AudioFormat, DeviceStatus, OutboxState, RecordingStatus, ScheduleAnswer, SchedulePreview, Scope } from '../types.ts';
import { streams } from '../builtins.ts';
import { ApiError, ConnectionError } from '../errors.ts';
import { UsageError, type Command, type Ctx, type Values } from './command.ts';
import { bytes, duration, ProgressBar, table } from './format.ts';

const FORMATS = ['flac', 'wav', 'mp3'];

function num(values: Values, name: string, opts: { min?: number; max?: number; integer?: boolean } = {}): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (
    typeof v !== 'string' ||
    v.trim() === '' ||
    !Number.isFinite(n) ||
    (opts.integer && !Number.isInteger(n)) ||
    (opts.min !== undefined && n < opts.min) ||
    (opts.max !== undefined && n > opts.max)
  ) {
    throw new UsageError(
      `--${name} must be ${opts.integer ? 'an integer' : 'a number'}` +
        (opts.min !== undefined ? ` from ${opts.min}` : '') +
        (opts.max !== undefined ? ` to ${opts.max}` : '') +
        `, not ${JSON.stringify(v)}`,
    );
  }
  return n;
}

function format(values: Values, name = 'format'): AudioFormat | undefined {
  const f = values[name];
  if (f === undefined) return undefined;
  if (typeof f !== 'string' || !FORMATS.includes(f)) throw new UsageError(`--${name} must be one of ${FORMATS.join(', ')}`);
  return f as AudioFormat;
}

const str = (values: Values, name: string) => values[name] as string | undefined;

function statusText(s: DeviceStatus): string {
  const pct = (n: number | null) => (n === null ? '-' : `${n.toFixed(1)} %`);
  const used = (u: number | null, t: number | null, a: number | null) => `${bytes(u)} used of ${bytes(t)} (${bytes(a)} available)`;
  return table([
    ['hostname', s.hostname],
    ['system', `${s.distro} ${s.release} (${s.platform} ${s.kernel}, ${s.arch})`],
    ['uptime', duration(s.uptimeSeconds)],
    [
      'cpu',
      `${pct(s.cpu.loadPercent)} of ${s.cpu.cores} cores (${s.cpu.model})` +
        (s.cpu.temperatureCelsius === null ? '' : `, ${s.cpu.temperatureCelsius.toFixed(1)} °C`),
    ],
    ['memory', used(s.memory.usedBytes, s.memory.totalBytes, s.memory.availableBytes)],
    ['disk', `${used(s.disk.usedBytes, s.disk.totalBytes, s.disk.availableBytes)} on ${s.disk.path}`],
    ['network', s.network.map((n) => `${n.iface} ${[...n.ipv4, ...n.ipv6].join(' ')}`).join('; ') || '-'],
    ['agent', `${s.agent.version}, up ${duration(s.agent.uptimeSeconds)}`],
    ['recording', s.recording.state],
    ['time', s.time],
  ]);
}

function recordingText(r: RecordingStatus): string {
  const parts = [`recording: ${r.state}`];
  if (r.fileExtension) parts.push(r.fileExtension);
  if (r.durationSeconds !== null) parts.push(`${r.durationSeconds} s`);
  if (r.file) parts.push(r.file);
  if (r.sizeBytes !== null) parts.push(bytes(r.sizeBytes));
  if (r.stoppedBy) parts.push(`stopped by ${r.stoppedBy}`);
  if (r.error) parts.push(`error: ${r.error}`);
  return parts.join(', ');
}

/** Where a download goes: DEST as given, inside it when it is a directory (or ends in /), else the base name. */
async function localTarget(path: string, dest: string | undefined, ctx: Ctx): Promise<string> {
  const name = basename(path);
  let dir: string | undefined;
  if (ctx.host) {
    // Many hosts: DEST is a directory holding one directory per host.
    dir = join(dest ?? '.', ctx.host.replace(/[^A-Za-z0-9._-]+/g, '_'));
    mkdirSync(dir, { recursive: true });
    return join(dir, name);
  }
  if (dest === undefined) return name;
  if (/[/\\]$/.test(dest)) return join(dest, name);
  try {
    if (statSync(dest).isDirectory()) return join(dest, name);
  } catch {
    // Not there yet: DEST is the file's name.
  }
  return dest;
}

async function fetchFile(ctx: Ctx, path: string, dest: string | undefined): Promise<{ path: string; size: number; resumedFrom: number }> {
  if (dest === '-') {
    const dl = await ctx.agent.download(path);
    await streams().pipeline(dl.body, process.stdout);
    return { path: '-', size: dl.total, resumedFrom: 0 };
  }
  const target = await localTarget(path, dest, ctx);
  const bar = ctx.io.progress ? new ProgressBar(basename(target)) : undefined;
  try {
    const saved = await ctx.agent.downloadToFile(path, target, { onProgress: bar && ((p) => bar.update(p)) });
    bar?.done();
    if (saved.resumedFrom > 0) ctx.io.note(`resumed ${target} from byte ${saved.resumedFrom}`);
    return { path: saved.path, size: saved.size, resumedFrom: saved.resumedFrom };
  } catch (err) {
    bar?.clear();
    throw err;
  }
}

const status: Command = {
  name: 'status',
  args: '',
  summary: 'Show the device status (host, CPU, memory, disk, network, recording)',
  examples: ['dagent status', 'dagent status --json | jq .cpu.loadPercent'],
  positionals: { min: 0, max: 0 },
  jsonWhenPiped: true,
  async run({ agent }) {
    const s = await agent.status();
    return { json: s, human: statusText(s) };
  },
};

const ls: Command = {
  name: 'ls',
  args: '[DIR]',
  summary: 'List a directory of the device (default: the base directory)',
  examples: ['dagent ls', 'dagent ls recordings', 'dagent ls recordings --json | jq -r ".entries[].name"'],
  positionals: { min: 0, max: 1 },
  jsonWhenPiped: true,
  async run({ agent }, [dir]) {
    const list = await agent.list(dir ?? '');
    const rows = list.entries.map((e) => [
      e.type === 'directory' ? `${e.name}/` : e.name,
      e.type === 'directory' ? '' : bytes(e.sizeBytes),
      e.modifiedAt,
    ]);
    const human =
      list.entries.length === 0
        ? '(empty)'
        : table([['NAME', 'SIZE', 'MODIFIED'], ...rows]) + (list.truncated ? '\n(truncated at 10000 entries)' : '');
    return { json: list, human };
  },
};

const get: Command = {
  name: 'get',
  args: 'PATH [DEST]',
  summary: 'Download a file (a cut download resumes when run again)',
  description:
    'DEST is a file name, or a directory to put the file in (default: the current directory); "-" writes to standard output.\n' +
    'A download that is cut leaves DEST and DEST.dagent; the same command run again fetches the rest with Range and If-Range,\n' +
    'or the whole file when it changed on the device meanwhile. The length is checked at the end.',
  examples: ['dagent get recordings/take.flac', 'dagent get logs/app.log /tmp/', 'dagent get data/big.bin - | sha256sum'],
  positionals: { min: 1, max: 2 },
  async run(ctx, [path, dest]) {
    const saved = await fetchFile(ctx, path!, dest);
    return {
      json: { path: path!, savedTo: saved.path, sizeBytes: saved.size, resumedFrom: saved.resumedFrom },
      message: saved.path === '-' ? undefined : `saved ${saved.path} (${bytes(saved.size)})`,
    };
  },
};

const put: Command = {
  name: 'put',
  args: 'FILE... DEST',
  summary: 'Upload one or more files',
  description:
    'DEST is the path on the device. Ending in "/" (or naming an existing directory) it is a directory and\n' +
    'each file keeps its name; several files need such a DEST. An upload is atomic on the device: all or nothing.',
  examples: ['dagent put config.json etc/config.json', 'dagent put *.wav samples/'],
  positionals: { min: 2, max: Infinity },
  async run(ctx, args) {
    const dest = args[args.length - 1]!;
    const files = args.slice(0, -1);
    const bar = ctx.io.progress ? new ProgressBar(files.length === 1 ? basename(files[0]!) : `${files.length} files`) : undefined;
    try {
      const r = await ctx.agent.upload(files, dest, { onProgress: bar && ((p) => bar.update(p)) });
      bar?.done();
      let total = 0;
      for (const f of files) total += statSync(f).size;
      return {
        json: { ...r, files: files.map((f) => basename(f)), saveToPath: dest, sizeBytes: total },
        message: `uploaded ${files.length === 1 ? files[0] : `${files.length} files`} (${bytes(total)}) to ${dest}`,
      };
    } catch (err) {
      bar?.clear();
      throw err;
    }
  },
};

const rm: Command = {
  name: 'rm',
  args: 'PATH',
  summary: 'Delete a file, a link or an empty directory (-r: any directory)',
  examples: ['dagent rm recordings/old.wav', 'dagent rm -r tmp/run-12'],
  options: { recursive: { type: 'boolean', short: 'r', help: 'delete a directory and everything in it' } },
  positionals: { min: 1, max: 1 },
  async run({ agent }, [path], values) {
    await agent.remove(path!, { recursive: values.recursive === true });
    return { json: { path: path!, deleted: true }, message: `deleted ${path}` };
  },
};

const mkdirCmd: Command = {
  name: 'mkdir',
  args: 'PATH',
  summary: 'Make a directory (and its parents)',
  examples: ['dagent mkdir samples/2026-11'],
  positionals: { min: 1, max: 1 },
  async run({ agent }, [path]) {
    const r = await agent.mkdir(path!);
    return { json: r, message: `directory ${r.path}` };
  },
};

const mv: Command = {
  name: 'mv',
  args: 'FROM TO',
  summary: 'Move or rename a file or directory on the device',
  examples: ['dagent mv recordings/take.flac archive/take.flac', 'dagent mv --force new.json config.json'],
  options: { force: { type: 'boolean', short: 'f', help: 'replace TO when it exists' } },
  positionals: { min: 2, max: 2 },
  async run({ agent }, [from, to], values) {
    const r = await agent.move(from!, to!, { overwrite: values.force === true });
    return { json: r, message: `moved ${from} to ${r.path}` };
  },
};

const record: Command = {
  name: 'record',
  args: '',
  summary: 'Start a recording; --wait for its end, --get DEST to fetch the file',
  description: 'Without --wait it returns once the recording started. --get implies --wait.',
  examples: [
    'dagent record --duration 10',
    'dagent record --duration 10 --format wav --get .',
    'dagent record --duration 60 --device plughw:1,0 --wait --json',
  ],
  options: {
    duration: { type: 'string', value: 'S', help: 'length in seconds (required)' },
    format: { type: 'string', value: 'F', help: 'flac (default), wav or mp3' },
    device: { type: 'string', value: 'D', help: "capture device id (dagent devices); default: the agent's audio.device" },
    wait: { type: 'boolean', help: 'wait until the recording has ended' },
    get: { type: 'string', value: 'DEST', help: 'then download the file to DEST (a file or directory)' },
  },
  positionals: { min: 0, max: 0 },
  async run(ctx, _args, values) {
    const seconds = num(values, 'duration', { min: Number.MIN_VALUE });
    if (seconds === undefined) throw new UsageError('--duration S is required');
    const device = str(values, 'device');
    const fileExtension = format(values) ?? 'flac';
    let r = await ctx.agent.startRecording({ duration: seconds, fileExtension, ...(device ? { device } : {}) });
    const dest = str(values, 'get');
    if (values.wait !== true && dest === undefined) return { json: r, human: recordingText(r) };
    if (ctx.io.progress) ctx.io.note(`recording ${seconds} s...`);
    r = await ctx.agent.waitForRecording();
    if (r.state !== 'finished' || !r.file) throw new Error(`the recording ${r.state}${r.error ? `: ${r.error}` : ''}`);
    if (dest === undefined) return { json: r, human: recordingText(r) };
    const saved = await fetchFile(ctx, r.file, dest);
    return { json: { ...r, savedTo: saved.path }, human: `${recordingText(r)}\nsaved to ${saved.path}` };
  },
};

const stop: Command = {
  name: 'stop',
  args: '',
  summary: 'Stop the running recording now (its file is kept)',
  examples: ['dagent stop'],
  positionals: { min: 0, max: 0 },
  async run({ agent }) {
    const r = await agent.stopRecording();
    return { json: r, human: recordingText(r) };
  },
};

const devices: Command = {
  name: 'devices',
  args: '',
  summary: 'List the audio capture devices',
  examples: ['dagent devices', 'dagent devices --json | jq -r ".devices[].id"'],
  positionals: { min: 0, max: 0 },
  jsonWhenPiped: true,
  async run({ agent }) {
    const d = await agent.devices();
    const rows = d.devices.map((x) => [
      x.id,
      x.default ? 'yes' : '',
      x.id === d.configured ? 'yes' : '',
      x.description.replace(/\s+/g, ' '),
    ]);
    return { json: d, human: table([['ID', 'DEFAULT', 'CONFIGURED', 'DESCRIPTION'], ...rows]) };
  },
};

const level: Command = {
  name: 'level',
  args: '',
  summary: 'Measure the input level of a capture device (peak and RMS, dBFS)',
  examples: ['dagent level', 'dagent level --device plughw:1,0 --seconds 3'],
  options: {
    device: { type: 'string', value: 'D', help: "capture device id; default: the agent's audio.device" },
    seconds: { type: 'string', value: 'S', help: 'how long to listen, 0.2 to 10 (default 1)' },
  },
  positionals: { min: 0, max: 0 },
  async run({ agent }, _args, values) {
    const l = await agent.level({ device: str(values, 'device'), seconds: num(values, 'seconds', { min: 0.2, max: 10 }) });
    return {
      json: l,
      human: `${l.device}: peak ${l.peakDbfs.toFixed(1)} dBFS, rms ${l.rmsDbfs.toFixed(1)} dBFS over ${l.seconds} s${l.clipped ? ', CLIPPED' : ''}`,
    };
  },
};

const listen: Command = {
  name: 'listen',
  args: '',
  summary: 'Stream the live input of a capture device (standard output, or --output FILE)',
  description: 'Runs until interrupted (Ctrl-C) or the device ends the stream.',
  examples: ['dagent listen | play -t wav -', 'dagent listen --format flac --output live.flac'],
  options: {
    format: { type: 'string', value: 'F', help: 'wav (default), flac or mp3' },
    device: { type: 'string', value: 'D', help: 'capture device id' },
    output: { type: 'string', short: 'o', value: 'FILE', help: 'write to FILE instead of standard output' },
  },
  positionals: { min: 0, max: 0 },
  single: true,
  async run(ctx, _args, values) {
    const output = str(values, 'output');
    if (!output && ctx.io.stdoutTty) throw new UsageError('standard output is a terminal: pipe it to a player or give --output FILE');
    const controller = new AbortController();
    const stopIt = () => controller.abort();
    process.once('SIGINT', stopIt);
    process.once('SIGTERM', stopIt);
    let received = 0;
    try {
      const res = await ctx.agent.live({ format: format(values) ?? 'wav', device: str(values, 'device'), signal: controller.signal });
      res.on('data', (c: Buffer) => {
        received += c.length;
      });
      await streams().pipeline(res, output ? createWriteStream(output) : process.stdout, { signal: controller.signal });
    } catch (err) {
      if (controller.signal.aborted) {
        // Interrupted: the end the person asked for.
      } else if (err instanceof ApiError || err instanceof ConnectionError || err instanceof UsageError) {
        throw err;
      } else if ((err as NodeJS.ErrnoException).code === 'ECONNRESET') {
        // The agent drops a reader that falls behind the capture.
        throw new ConnectionError(
          `the live stream was cut after ${received} bytes (the agent drops a reader that falls behind)`,
          'ECONNRESET',
        );
      } else {
        throw err;
      }
    } finally {
      process.removeListener('SIGINT', stopIt);
      process.removeListener('SIGTERM', stopIt);
    }
    return { json: { output: output ?? '-', bytes: received }, message: output ? `wrote ${bytes(received)} to ${output}` : undefined };
  },
};

const events: Command = {
  name: 'events',
  args: '',
  summary: "Follow the device's events (status, recording, level) until interrupted",
  description: 'With --json (or when standard output is not a terminal): one JSON line per event, {"event", "data"}.',
  examples: ['dagent events', 'dagent events --json | jq -c "select(.event == \\"recording\\") | .data.state"'],
  positionals: { min: 0, max: 0 },
  single: true,
  jsonWhenPiped: true,
  async run(ctx, _args, values) {
    const controller = new AbortController();
    const stopIt = () => controller.abort();
    process.once('SIGINT', stopIt);
    const asJson = values.json === true || !ctx.io.stdoutTty;
    let n = 0;
    try {
      for await (const e of ctx.agent.events({ signal: controller.signal })) {
        n++;
        if (asJson) process.stdout.write(`${JSON.stringify(e)}\n`);
        else process.stdout.write(`${new Date().toISOString().slice(11, 19)}  ${e.event.padEnd(9)} ${eventText(e)}\n`);
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    } finally {
      process.removeListener('SIGINT', stopIt);
    }
    return { json: { events: n } };
  },
};

function eventText(e: { event: string; data: unknown }): string {
  if (e.event === 'status') {
    const s = e.data as DeviceStatus;
    return `cpu ${s.cpu.loadPercent?.toFixed(1) ?? '-'} %, memory ${bytes(s.memory.usedBytes)} of ${bytes(s.memory.totalBytes)}, recording ${s.recording.state}`;
  }
  if (e.event === 'recording') return recordingText(e.data as RecordingStatus);
  if (e.event === 'level') {
    const l = e.data as { device: string; peakDbfs: number; rmsDbfs: number };
    return `${l.device}: peak ${l.peakDbfs.toFixed(1)} dBFS, rms ${l.rmsDbfs.toFixed(1)} dBFS`;
  }
  return JSON.stringify(e.data);
}

const tokenCreate: Command = {
  name: 'token create',
  args: 'NAME',
  summary: 'Make an API token for a script or integration (its text is shown once)',
  description: 'The token gets your scopes and directory unless narrowed. Its text goes to standard output, alone.',
  examples: ['dagent token create backup --scopes files:read --expires-days 30', 'TOKEN=$(dagent token create ci --scopes status)'],
  options: {
    scopes: { type: 'string', value: 'a,b', help: 'status, files:read, files:write, audio, metrics, admin' },
    directory: { type: 'string', value: 'D', help: 'limit the token to this directory' },
    'expires-days': { type: 'string', value: 'N', help: 'days until it expires, 1-3650 (default 365)' },
    'no-expiry': { type: 'boolean', help: 'never expires' },
  },
  positionals: { min: 1, max: 1 },
  async run({ agent }, [name], values) {
    const scopes = str(values, 'scopes')
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean) as Scope[] | undefined;
    const days = num(values, 'expires-days', { min: 1, max: 3650, integer: true });
    const t = await agent.createToken({
      name: name!,
      ...(scopes ? { scopes } : {}),
      ...(str(values, 'directory') ? { directory: str(values, 'directory') } : {}),
      ...(values['no-expiry'] ? { expiresInDays: null } : days !== undefined ? { expiresInDays: days } : {}),
    });
    return { json: t, human: t.token };
  },
};

const tokenList: Command = {
  name: 'token list',
  args: '',
  summary: "List your API tokens (everyone's with scope admin)",
  examples: ['dagent token list', 'dagent token list --json | jq -r ".tokens[].name"'],
  positionals: { min: 0, max: 0 },
  jsonWhenPiped: true,
  async run({ agent }) {
    const tokens = await agent.tokens();
    const rows = tokens.map((t) => [
      t.id,
      t.name,
      t.username,
      t.scopes.join(','),
      t.directory ?? '',
      t.expiresAt ?? 'never',
      t.lastUsedAt ?? '',
    ]);
    return {
      json: { tokens },
      human: tokens.length ? table([['ID', 'NAME', 'USER', 'SCOPES', 'DIRECTORY', 'EXPIRES', 'LAST USED'], ...rows]) : '(no tokens)',
    };
  },
};

const tokenRevoke: Command = {
  name: 'token revoke',
  args: 'ID|NAME',
  summary: 'Revoke an API token by its id or name',
  examples: ['dagent token revoke backup', 'dagent token revoke 3f2a9c1e'],
  positionals: { min: 1, max: 1 },
  async run({ agent }, [which]) {
    const tokens = await agent.tokens();
    const byId = tokens.find((t) => t.id === which);
    const byName = tokens.filter((t) => t.name === which);
    const t = byId ?? (byName.length === 1 ? byName[0] : undefined);
    if (!t && byName.length > 1)
      throw new UsageError(`several tokens are named ${which} (of ${byName.map((x) => x.username).join(', ')}): give the id`);
    if (!t) throw new ApiError(404, 'token not found');
    await agent.revokeToken(t.id);
    return { json: { id: t.id, name: t.name, revoked: true }, message: `revoked token ${t.name} (${t.id})` };
  },
};

const users: Command = {
  name: 'users',
  args: '',
  summary: "List the device's users (scope admin)",
  examples: ['dagent users'],
  positionals: { min: 0, max: 0 },
  jsonWhenPiped: true,
  async run({ agent }) {
    const list = await agent.users();
    return {
      json: { users: list },
      human: table([['ID', 'USERNAME', 'ROLE', 'DIRECTORY'], ...list.map((u) => [u.id, u.username, u.role, u.directory ?? ''])]),
    };
  },
};

/** The documents read by this run, or why one could not be: --hosts runs a command once a host. */
const documents = new Map<string, { doc: Record<string, unknown> } | { err: UsageError }>();

/** A schedule document from a file or standard input (`-`), read once however many hosts it goes to. */
function scheduleFile(path: string): Record<string, unknown> {
  let read = documents.get(path);
  if (!read) {
    read = readDocument(path);
    documents.set(path, read);
  }
  if ('err' in read) throw read.err;
  return read.doc;
}

function readDocument(path: string): { doc: Record<string, unknown> } | { err: UsageError } {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    return { err: new UsageError(`cannot read ${path}: ${(err as Error).message}`) };
  }
  try {
    return { doc: JSON.parse(text) as Record<string, unknown> };
  } catch (err) {
    return { err: new UsageError(`${path === '-' ? 'standard input' : path} is not JSON: ${(err as Error).message}`) };
  }
}

const previewText = (p: SchedulePreview) =>
  [
    ...(p.windows.length ? [] : ['(no window begins on these days)']),
    ...p.windows.map((w) => `${w.start} to ${w.end}${w.on.length > 1 ? ` (${w.on.length} recording periods)` : ''}`),
    ...p.skipped.map((k) => `${k.date}: window ${k.window} skipped: ${k.reason}`),
  ].join('\n');

/** "off (disabled)", "recording": the schedule's state and why. */
const stateText = ({ state, reason }: ScheduleAnswer['state']) => `${state}${reason ? ` (${reason})` : ''}`;

const scheduleShow: Command = {
  name: 'schedule show',
  args: '',
  summary: "The device's recording schedule and what it does now",
  examples: ['dagent schedule show', 'dagent schedule show --json | jq .state'],
  positionals: { min: 0, max: 0 },
  jsonWhenPiped: true,
  async run({ agent }) {
    const a = await agent.schedule();
    const st = a.state;
    const lines = [
      `state: ${stateText(st)}`,
      ...(st.window ? [`window: ${st.window.start} to ${st.window.end}`] : []),
      ...(st.next ? [`next: ${st.next.start} to ${st.next.end}`] : []),
      ...(st.lastSegment
        ? [`last segment: ${st.lastSegment.file} (${st.lastSegment.durationSeconds} s, ${bytes(st.lastSegment.sizeBytes)})`]
        : []),
      a.schedule ? JSON.stringify(a.schedule, null, 2) : '(no schedule)',
    ];
    return { json: a, human: lines.join('\n') };
  },
};

const scheduleSet: Command = {
  name: 'schedule set',
  args: 'FILE|-',
  summary: 'Store a recording schedule (a JSON document; - reads standard input); it applies at once',
  examples: [
    'dagent schedule set dawn-chorus.json',
    'dagent schedule set - < schedule.json',
    'dagent schedule set s.json --hosts devices.txt',
  ],
  positionals: { min: 1, max: 1 },
  async run({ agent }, [file]) {
    const a = await agent.setSchedule(scheduleFile(file!));
    return { json: a, message: `schedule stored: ${stateText(a.state)}` };
  },
};

const scheduleClear: Command = {
  name: 'schedule clear',
  args: '',
  summary: 'Remove the recording schedule; a segment being recorded ends and is kept',
  examples: ['dagent schedule clear', 'dagent schedule clear --hosts devices.txt'],
  positionals: { min: 0, max: 0 },
  async run({ agent }) {
    await agent.clearSchedule();
    return { json: { cleared: true }, message: 'schedule cleared' };
  },
};

const schedulePreview: Command = {
  name: 'schedule preview',
  args: '',
  summary: 'The windows the schedule records on the days asked (of the stored schedule, or of --file before storing it)',
  examples: ['dagent schedule preview --days 30', 'dagent schedule preview --file new.json --from 2026-06-01'],
  options: {
    from: { type: 'string', value: 'YYYY-MM-DD', help: "first day; default: today in the schedule's zone" },
    days: { type: 'string', value: 'N', help: 'how many days, 1 to 366 (default 7)' },
    file: { type: 'string', value: 'FILE', help: 'preview this document (- for standard input) instead of the stored one' },
  },
  positionals: { min: 0, max: 0 },
  async run({ agent }, _args, values) {
    const file = str(values, 'file');
    const days = num(values, 'days', { min: 1, max: 366, integer: true });
    const p = await agent.schedulePreview({ schedule: file ? scheduleFile(file) : undefined, from: str(values, 'from'), days });
    return { json: p, human: previewText(p) };
  },
};

const filesText = (n: number) => (n === 1 ? '1 file' : `${n} files`);

/** The outbox's state as a table (docs/outbox.md of the agent); "off" alone when it is off. */
function outboxText(o: OutboxState): string {
  if (!o.enabled) return 'outbox: off (no outbox in the config)';
  const t = o.target;
  const rows: Array<Array<string | number | null | undefined>> = [
    ['state', o.state],
    ['target', t ? `${t.type} ${t.endpoint ?? t.url ?? ''}${t.bucket ? ` (bucket ${t.bucket})` : ''}` : '-'],
    ['pending', o.pending ? `${filesText(o.pending.files)}, ${bytes(o.pending.bytes)}` : '-'],
    ['oldest pending', o.oldestPendingAt],
    ['uploaded', o.uploaded ? `${filesText(o.uploaded.files)}, ${bytes(o.uploaded.bytes)} since start` : '-'],
    ['last success', o.lastSuccessAt],
    ['last error', o.lastError ? `${o.lastError.time} ${o.lastError.text}` : null],
    ['next attempt', o.nextAttemptAt],
  ];
  for (const f of o.failed ?? []) rows.push(['set aside', `${f.path}: ${f.error} (since ${f.since})`]);
  return table(rows);
}

const outboxShow: Command = {
  name: 'outbox',
  args: '',
  summary: "The outbox's state: files waiting for central storage, the last error, the next attempt",
  examples: ['dagent outbox', 'dagent outbox --json | jq .pending.files', 'dagent outbox --hosts devices.txt'],
  positionals: { min: 0, max: 0 },
  jsonWhenPiped: true,
  async run({ agent }) {
    const o = await agent.outbox();
    return { json: o, human: outboxText(o) };
  },
};

const outboxRetry: Command = {
  name: 'outbox retry',
  args: '',
  summary: "Start the outbox's next attempt now, set-aside files included",
  examples: ['dagent outbox retry', 'dagent outbox retry --hosts devices.txt'],
  positionals: { min: 0, max: 0 },
  async run({ agent }) {
    const o = await agent.retryOutbox();
    return { json: o, message: `outbox: next attempt started (${filesText(o.pending?.files ?? 0)} pending)` };
  },
};

export const deviceCommands: Command[] = [
  status,
  ls,
  get,
  put,
  rm,
  mkdirCmd,
  mv,
  record,
  stop,
  devices,
  level,
  listen,
  events,
  tokenCreate,
  tokenList,
  tokenRevoke,
  users,
  scheduleShow,
  scheduleSet,
  scheduleClear,
  schedulePreview,
  outboxShow,
  outboxRetry,
];
