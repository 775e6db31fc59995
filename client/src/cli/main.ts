// dagent: the command line of device-agent-client. This file owns the process: argv, the
// profile, output on stdout/stderr, and the exit codes (0 ok, 1 the agent refused or
// failed, 2 usage, 3 credential refused, 4 no connection or TLS trust failed).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { DeviceAgent } from '../client.ts';
import { ApiError, ConnectionError, TrustError } from '../errors.ts';
import { NoCredentialError, UsageError, type Command, type Ctx, type Io, type OptionSpec, type Output, type Values } from './command.ts';
import { deviceCommands } from './commands.ts';
import { helpOf, overview } from './help.ts';
import { normalizeUrl, profileCommands } from './login.ts';
import { closeInput } from './prompt.ts';
import { loadProfiles, profileName, type Profile } from './profiles.ts';

const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  profile: { type: 'string', value: 'P', help: 'the profile to use (default: $DAGENT_PROFILE, else "default")' },
  json: { type: 'boolean', help: 'print the result as JSON' },
  hosts: { type: 'string', value: 'FILE', help: 'run on every host of FILE: profile names or their URLs, one a line (# comments)' },
  jobs: { type: 'string', short: 'j', value: 'N', help: 'with --hosts: hosts at once (default 8)' },
  help: { type: 'boolean', short: 'h', help: 'show help' },
};

export const COMMANDS: Command[] = [...profileCommands, ...deviceCommands];

/** The command being run, for the last words on a failure. */
let running: Command | undefined;

function parseOptions(specs: Record<string, OptionSpec>) {
  return Object.fromEntries(
    Object.entries(specs).map(([k, s]) => [
      k,
      { type: s.type, ...(s.short ? { short: s.short } : {}), ...(s.multiple ? { multiple: true } : {}) },
    ]),
  );
}

/** The command named by the first positionals ("token create" takes two). */
function findCommand(positionals: string[]): { cmd: Command; used: number } | undefined {
  const two = positionals.slice(0, 2).join(' ');
  const byTwo = COMMANDS.find((c) => c.name === two);
  if (byTwo) return { cmd: byTwo, used: 2 };
  const byOne = COMMANDS.find((c) => c.name === positionals[0]);
  return byOne ? { cmd: byOne, used: 1 } : undefined;
}

function exitCodeOf(err: unknown): number {
  if (err instanceof UsageError) return 2;
  if (err instanceof NoCredentialError) return 3;
  if (err instanceof ApiError) return err.status === 401 || err.status === 403 ? 3 : 1;
  if (err instanceof ConnectionError || err instanceof TrustError) return 4;
  return 1;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** The profile's token goes to the profile's URL only, with the profile's trust. */
function agentFor(profile: Profile): DeviceAgent {
  return new DeviceAgent({ url: profile.url, token: profile.token, pin: profile.pin, ca: profile.ca });
}

type Profiles = Record<string, Profile>;

function profileOrFail(name: string, profiles: Profiles = loadProfiles().profiles): Profile {
  const profile = profiles[name];
  if (!profile)
    throw new NoCredentialError(`no profile "${name}": log in first (dagent login URL${name === 'default' ? '' : ` --profile ${name}`})`);
  return profile;
}

/**
 * The profile for a URL line of --hosts: one whose URL has the line's origin (the one
 * --profile names when several do), so a token goes only where it was made, with its trust.
 */
function profileForUrl(url: string, preferred: string, profiles: Profiles): Profile {
  const names = Object.keys(profiles).filter((n) => profiles[n]!.url === url);
  if (names.includes(preferred)) return profiles[preferred]!;
  if (names.length === 1) return profiles[names[0]!]!;
  if (names.length === 0) throw new NoCredentialError(`no profile for ${url}: log in first (dagent login ${url} --profile NAME)`);
  throw new NoCredentialError(`profiles ${names.join(', ')} are all for ${url}: name one with --profile, or in the hosts file`);
}

function io(progress: boolean): Io {
  return {
    stdoutTty: process.stdout.isTTY === true,
    progress,
    note: (text) => process.stderr.write(`${text}\n`),
  };
}

/** Runs the command on each host of the file, N at once; one JSON line per host, in the file's order of completion. */
async function runHosts(cmd: Command, args: string[], values: Values, file: string): Promise<number> {
  const jobs = values.jobs === undefined ? 8 : Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1) throw new UsageError(`-j must be a positive integer, not ${values.jobs}`);
  const hosts = readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean);
  if (hosts.length === 0) throw new UsageError(`${file} names no host`);
  const codes: number[] = [];
  const preferred = profileName(values.profile as string | undefined);
  // The profiles file is read once for all the hosts (one that cannot be read fails every host's line).
  let profiles: Profiles | undefined;
  const known = () => (profiles ??= loadProfiles().profiles);
  let next = 0;
  const one = async (host: string): Promise<void> => {
    let agent: DeviceAgent | undefined;
    try {
      const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(host);
      const profile = isUrl ? profileForUrl(normalizeUrl(host), preferred, known()) : profileOrFail(host, known());
      agent = agentFor(profile);
      const ctx: Ctx = { agent, io: { ...io(false), note: () => undefined }, host };
      const out = await cmd.run(ctx, args, values);
      process.stdout.write(`${JSON.stringify({ host, ok: true, result: out.json ?? null })}\n`);
    } catch (err) {
      codes.push(exitCodeOf(err));
      process.stdout.write(
        `${JSON.stringify({ host, ok: false, status: err instanceof ApiError ? err.status : null, error: messageOf(err) })}\n`,
      );
    } finally {
      agent?.close();
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(jobs, hosts.length) }, async () => {
      while (next < hosts.length) await one(hosts[next++]!);
    }),
  );
  if (codes.length === 0) return 0;
  return codes.every((c) => c === codes[0]) ? codes[0]! : 1;
}

function print(out: Output, asJson: boolean): void {
  if (asJson) {
    process.stdout.write(`${JSON.stringify(out.json, null, 2)}\n`);
    return;
  }
  if (out.human !== undefined) process.stdout.write(`${out.human}\n`);
  if (out.message) process.stderr.write(`${out.message}\n`);
}

export async function main(argv: string[]): Promise<number> {
  // First pass: every option any command knows, to find the command's name among the positionals.
  const all: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS, version: { type: 'boolean', help: '' } };
  for (const c of COMMANDS) Object.assign(all, c.options);
  let first;
  try {
    first = parseArgs({ args: argv, options: parseOptions(all), allowPositionals: true, strict: false });
  } catch (err) {
    throw new UsageError(messageOf(err));
  }
  if (first.values.version && first.positionals.length === 0) {
    process.stdout.write(`dagent ${VERSION}\n`);
    return 0;
  }
  let positionals = first.positionals;
  let asHelp = first.values.help === true;
  if (positionals[0] === 'help') {
    positionals = positionals.slice(1);
    asHelp = true;
  }
  const found = findCommand(positionals);
  if (!found) {
    if (positionals.length === 0) {
      process.stdout.write(overview(COMMANDS, GLOBAL_OPTIONS, VERSION));
      return asHelp ? 0 : 2;
    }
    // A word that only begins commands (token, schedule): name them, as `dagent schedule` alone was "unknown".
    const group = COMMANDS.filter((c) => c.name.startsWith(`${positionals[0]} `)).map((c) => c.name);
    if (group.length > 0) {
      const asked = positionals.slice(0, 2).join(' ');
      throw new UsageError(
        `${positionals.length === 1 ? `"${asked}" needs one of` : `unknown command "${asked}"; use one of`} ${group.join(', ')}; see dagent --help`,
      );
    }
    throw new UsageError(`unknown command "${positionals[0]}"; see dagent --help`);
  }
  const { cmd, used } = found;
  running = cmd;
  if (asHelp) {
    process.stdout.write(helpOf(cmd, GLOBAL_OPTIONS));
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: parseOptions({ ...GLOBAL_OPTIONS, ...cmd.options }), allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${messageOf(err).replace(/\. To specify a positional argument.*$/s, '')}; see dagent ${cmd.name} --help`);
  }
  const values = parsed.values as Values;
  const args = parsed.positionals.slice(used);
  if (args.length < cmd.positionals.min || args.length > cmd.positionals.max) {
    throw new UsageError(`usage: dagent ${cmd.name}${cmd.args ? ` ${cmd.args}` : ''}; see dagent ${cmd.name} --help`);
  }
  const hostsFile = values.hosts as string | undefined;
  if (hostsFile) {
    if (cmd.single) throw new UsageError(`dagent ${cmd.name} runs on one device, not with --hosts`);
    return runHosts(cmd, args, values, hostsFile);
  }
  const asJson = values.json === true || (cmd.jsonWhenPiped === true && process.stdout.isTTY !== true);
  const progress = process.stderr.isTTY === true && !asJson;
  // The profile is read when the command first needs it, after its own checks of its
  // arguments (login and logout handle profiles themselves and never ask).
  let agent: DeviceAgent | undefined;
  const ctx = {
    io: io(progress),
    get agent(): DeviceAgent {
      agent ??= agentFor(profileOrFail(profileName(values.profile as string | undefined)));
      return agent;
    },
  };
  try {
    const out = await cmd.run(ctx, args, values);
    // events printed each event as it came; its result (a count) is for --hosts, which it refuses.
    if (cmd.name !== 'events') print(out, asJson);
    return 0;
  } finally {
    agent?.close();
  }
}

// A reader that went away (`dagent events --json | head -1`) ends the command quietly, as
// SIGPIPE ends a C program, instead of an unhandled EPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(process.exitCode ?? 0);
});

// This module is the program: dagent.ts imports it once the compile cache is on.
main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`dagent: ${messageOf(err)}\n`);
      if (err instanceof ApiError && err.status === 401 && running && running.name !== 'login' && running.name !== 'logout')
        process.stderr.write('(the stored token was refused: log in again with dagent login)\n');
      if (process.env.DAGENT_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
      process.exitCode = exitCodeOf(err);
    },
  )
  .finally(closeInput);
