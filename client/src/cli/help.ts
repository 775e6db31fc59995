// Help texts: the overview of `dagent --help` and each command's own, with examples.
import type { Command, OptionSpec } from './command.ts';

function optionLines(specs: Record<string, OptionSpec>): string[] {
  return Object.entries(specs).map(([name, s]) => {
    const flag = `${s.short ? `-${s.short}, ` : '    '}--${name}${s.value ? ` ${s.value}` : ''}`;
    return `  ${flag.padEnd(30)} ${s.help}`;
  });
}

export function helpOf(cmd: Command, globals: Record<string, OptionSpec>): string {
  const lines = [`${cmd.summary}.`, '', `Usage: dagent ${cmd.name}${cmd.args ? ` ${cmd.args}` : ''}${cmd.options ? ' [options]' : ''}`];
  if (cmd.description) lines.push('', cmd.description);
  if (cmd.options) lines.push('', 'Options:', ...optionLines(cmd.options));
  lines.push('', 'Global options:', ...optionLines(globals));
  lines.push('', 'Examples:', ...cmd.examples.map((e) => `  $ ${e}`), '');
  return lines.join('\n');
}

export function overview(commands: Command[], globals: Record<string, OptionSpec>, version: string): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    `dagent ${version}: the command line of device-agent.`,
    '',
    'Usage: dagent COMMAND [ARGS] [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Global options:',
    ...optionLines(globals),
    '',
    'Exit codes: 0 success, 1 the agent refused or failed, 2 usage, 3 credential refused, 4 no connection or TLS trust failed.',
    '',
    'Examples:',
    '  $ dagent login https://10.0.0.5:5050 --user admin',
    '  $ dagent status',
    '  $ dagent record --duration 10 --get .',
    '  $ dagent put notes.txt docs/',
    '  $ dagent status --hosts devices.txt -j 16',
    '',
    "dagent COMMAND --help shows a command's options and examples.",
    '',
  ].join('\n');
}
