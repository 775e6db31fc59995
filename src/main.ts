// The entry point: argv, environment, signals and exit codes live here and nowhere else.
import { checkConfig } from './cli/check.ts';
import { tlsShow } from './cli/tls.ts';
import { tokenCommand } from './cli/tokens.ts';
import { CliError, usageError, userCommand } from './cli/users.ts';
import { ConfigError, DEFAULT_CONFIG_PATH, devConfig, EX_CONFIG, type Config } from './config/config.ts';
import { inFiles, loadConfig, parseConfigFiles, readConfigFiles } from './config/files.ts';
import { createLogger, PRIORITY } from './util/logger.ts';
import { startAgent, type Agent } from './serve.ts';
import { passedFds } from './systemd/listen-fds.ts';
import { systemdNotifier } from './systemd/notify.ts';
import { VERSION } from './util/version.ts';

/** sysexits EX_USAGE, the code of a usageError(). */
const EX_USAGE = 64;

const USAGE = `device-agent ${VERSION}: a small HTTP agent for Linux devices

Usage:
  device-agent [serve] [--config FILE]     run the HTTP service (default command)
  device-agent user add NAME [--role R] [--directory DIR]
                                           create a user (role viewer, operator (default)
                                           or admin; DIR relative to baseDir confines its
                                           file routes); the password is read from
                                           standard input (one line, waited for) or
                                           prompted twice on a terminal
  device-agent user set NAME [--role R] [--directory DIR | --no-directory]
                                           change a user's role or directory (applies to
                                           its sessions and tokens within 2 s)
  device-agent user passwd NAME            set a new password (same input rules)
  device-agent user remove NAME            remove a user; its tokens stop working
  device-agent user list                   list users: name, role, directory, id
  device-agent token create NAME --user USER [--scopes a,b] [--directory DIR]
                             [--expires-days N | --no-expiry]
                                           make an API token; printed once, alone on the
                                           last line of standard output
  device-agent token list [--user USER]    list API tokens (never their text)
  device-agent token revoke ID|NAME --user USER
                                           revoke an API token (refused within 2 s)
  device-agent schedule show | set FILE|- | clear | preview [--from D] [--days N] [--json]
                                           the recording schedule (docs/schedule.md): set
                                           validates it and the agent applies it within 2 s
  device-agent config check [--config FILE]
                                           validate the config, its drop-ins (config.d/*.json
                                           beside it) and its paths (exit 0 or 78)
  device-agent config show [--config FILE] print the merged config, defaults filled in, as JSON
  device-agent tls show [--config FILE]    the HTTPS certificate: names, validity, SHA-256
                                           fingerprint and SPKI pin (curl --pinnedpubkey)
  device-agent --version                   print the version
  device-agent --help                      print this help

Options:
  --config FILE   config file; default: $DEVICE_AGENT_CONFIG, then ${DEFAULT_CONFIG_PATH}
  --dev           without --config or $DEVICE_AGENT_CONFIG, use the embedded development
                  config (127.0.0.1:5050, state under ./var/); npm start passes it
`;

interface Args {
  positional: string[];
  config: string | undefined;
  dev: boolean;
  help: boolean;
  version: boolean;
  /** The user and token commands' options (--role, --scopes, ...), by name without dashes. */
  options: Map<string, string | true>;
}

/** Options that take a value, and those that are flags; each belongs to the user or token commands. */
const VALUE_OPTIONS = new Set(['role', 'directory', 'user', 'scopes', 'expires-days', 'from', 'days']);
const FLAG_OPTIONS = new Set(['no-directory', 'no-expiry', 'json']);

function parseArgs(argv: string[]): Args {
  const args: Args = { positional: [], config: undefined, dev: false, help: false, version: false, options: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const name = a.startsWith('--') ? a.slice(2).split('=', 1)[0]! : '';
    if (VALUE_OPTIONS.has(name)) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined) throw usageError(`--${name} needs a value`);
      args.options.set(name, v);
    } else if (FLAG_OPTIONS.has(name) && !a.includes('=')) {
      args.options.set(name, true);
    } else if (a === '--config') {
      const v = argv[++i];
      if (!v) throw usageError('--config needs a file');
      args.config = v;
    } else if (a.startsWith('--config=')) args.config = a.slice('--config='.length);
    else if (a === '--dev') args.dev = true;
    else if (a === '--help' || a === '-h') args.help = true;
    else if (a === '--version' || a === '-V') args.version = true;
    else if (a.startsWith('-') && a !== '-')
      throw usageError(`unknown option ${a}`); // '-': standard input
    else args.positional.push(a);
  }
  return args;
}

/** The config file in use; undefined for the embedded development config. */
function configFile(args: Args): string | undefined {
  const file = args.config ?? process.env.DEVICE_AGENT_CONFIG;
  if (file) return file;
  return args.dev ? undefined : DEFAULT_CONFIG_PATH;
}

function resolveConfig(args: Args): Config {
  const file = configFile(args);
  return file ? loadConfig(file) : devConfig(process.cwd());
}

/**
 * SIGHUP (`systemctl reload`): the config and its drop-ins read again and applied whole,
 * or refused whole with an error naming file and key while the running config stays.
 */
function reload(agent: Agent, args: Args): void {
  const file = configFile(args);
  try {
    if (!file) {
      agent.reload(devConfig(process.cwd()));
    } else {
      const cf = readConfigFiles(file);
      const config = parseConfigFiles(cf);
      inFiles(cf, () => agent.reload(config));
    }
  } catch (err) {
    // Whatever went wrong, the agent keeps serving on the running config.
    const why = err instanceof ConfigError ? err.message : String((err as Error)?.stack ?? err);
    logger.error(`reload refused, the running config stays: ${why}`);
  }
  // TLS (docs/api.md#https, docs/api.md#systemd): the certificate and key read again; a pair that fails keeps the
  // one in service (logged by the agent).
  void agent.reloadTls();
}

const logger = createLogger((chunk) => process.stdout.write(chunk));
/** Set once `serve` runs: from then on a fatal error is a log line (priority err), not CLI output. */
let serving = false;

async function serve(args: Args): Promise<void> {
  // Read (and removed from the environment) before anything can fail or spawn.
  const passed = passedFds();
  const systemd = systemdNotifier(logger);
  const config = resolveConfig(args);
  const agent = await startAgent(config, {
    systemd,
    passed,
    firstRunAdmin: args.dev && !args.config && !process.env.DEVICE_AGENT_CONFIG,
    log: logger,
    // The first-run password, shown once in development mode: it must stand out.
    announce: (text) => logger.warn(text),
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    systemd?.stopping();
    logger.info(`${signal}: stopping, letting running requests finish (up to 10 s)`);
    agent.stop(10_000).then(
      () => {
        logger.info('stopped');
        logger.flush();
        process.exit(0);
      },
      (err: unknown) => {
        logger.error(`stop failed: ${String(err)}`);
        logger.flush();
        process.exit(1);
      },
    );
  };
  process.on('SIGHUP', () => {
    if (stopping) return;
    systemd?.reloading();
    reload(agent, args);
    systemd?.ready(agent.statusLine());
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (args.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const [command = 'serve', sub, name, ...extra] = args.positional;
  if (args.options.size > 0 && command !== 'user' && command !== 'token' && command !== 'schedule') {
    throw usageError(`--${[...args.options.keys()][0]} is an option of the user, token and schedule commands`);
  }
  const out = (line: string) => process.stdout.write(line + '\n');
  switch (command) {
    case 'serve':
      if (sub) throw usageError(`serve takes no argument "${sub}"`);
      serving = true;
      await serve(args);
      return -1; // keeps running
    case 'user':
      if (extra.length > 0) throw usageError(`unexpected argument "${extra[0]}"`);
      await userCommand(sub, name, resolveConfig(args), args.options, out);
      return 0;
    case 'token':
      if (extra.length > 0) throw usageError(`unexpected argument "${extra[0]}"`);
      await tokenCommand(sub, name, resolveConfig(args), args.options, out);
      return 0;
    case 'schedule': {
      if (extra.length > 0) throw usageError(`unexpected argument "${extra[0]}"`);
      const { scheduleCommand } = await import('./cli/schedule.ts');
      scheduleCommand(sub, name, resolveConfig(args), args.options, out);
      return 0;
    }
    case 'config':
      if ((sub !== 'check' && sub !== 'show') || name) throw usageError('usage: device-agent config check|show [--config FILE]');
      if (sub === 'show') {
        out(JSON.stringify(resolveConfig(args), null, 2));
        return 0;
      }
      for (const note of checkConfig(resolveConfig(args))) out(note);
      out('config OK');
      return 0;
    case 'tls':
      if (sub !== 'show' || name) throw usageError('usage: device-agent tls show [--config FILE]');
      tlsShow(resolveConfig(args), out);
      return 0;
    default:
      throw usageError(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    logger.flush();
    // The service's last words carry the journald priority like every other line.
    const prefix = serving ? PRIORITY.error : '';
    if (err instanceof ConfigError) {
      process.stderr.write(`${prefix}device-agent: config error: ${err.message}\n`);
      process.exit(EX_CONFIG);
    }
    if (err instanceof CliError) {
      process.stderr.write(`device-agent: ${err.message}\n${err.exitCode === EX_USAGE ? 'Try: device-agent --help\n' : ''}`);
      process.exit(err.exitCode);
    }
    process.stderr.write(`${prefix}device-agent: ${(err as Error)?.message ?? String(err)}\n`);
    process.exit(1);
  },
);
