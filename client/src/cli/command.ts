// What a dagent command is: its help, its options, and a run() that returns a result (the
// JSON of --json and of --hosts lines) and, for people, text for standard output.
import type { DeviceAgent } from '../client.ts';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** `--name VALUE: help` in the command's help. */
  value?: string;
  help: string;
}

export interface Io {
  /** Standard output is a terminal. */
  stdoutTty: boolean;
  /** Progress bars may be drawn (standard error is a terminal, one host). */
  progress: boolean;
  /** Informational messages (standard error). */
  note(text: string): void;
}

export interface Ctx {
  agent: DeviceAgent;
  io: Io;
  /** Set when the command runs for one line of --hosts: the host's name, for file names. */
  host?: string;
}

export interface Output {
  /** The command's result for programs. */
  json: unknown;
  /** Text for a person, printed on standard output when not --json. */
  human?: string;
  /** What was done, for a person, on standard error when not --json. */
  message?: string;
}

export type Values = Record<string, string | boolean | string[] | undefined>;

export interface Command {
  /** `status`, `token create`. */
  name: string;
  /** Arguments after the name, e.g. `PATH [DEST]`. */
  args: string;
  summary: string;
  /** Paragraphs after the usage line. */
  description?: string;
  examples: string[];
  options?: Record<string, OptionSpec>;
  positionals: { min: number; max: number };
  /** JSON also when standard output is not a terminal. */
  jsonWhenPiped?: boolean;
  /** Not with --hosts (interactive, or a stream). */
  single?: boolean;
  run(ctx: Ctx, args: string[], values: Values): Promise<Output>;
}

/** A mistake in the command line: exit 2, with a pointer to the command's help. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** No credential to use: exit 3. */
export class NoCredentialError extends Error {
  override readonly name = 'NoCredentialError';
}
