// `device-agent schedule show|set|clear|preview` on the device (docs/schedule.md, "CLI"):
// the same file, lock and validation as the agent's /api/v1/schedule, which picks a change
// up within 2 s. A refused document exits 1 with the API's text (the field by its path).
import { readFileSync } from 'node:fs';
import type { Config } from '../config/config.ts';
import { parseSchedule, type Schedule, ScheduleInvalid } from '../schedule/document.ts';
import { readScheduleFile, removeScheduleFileSync, writeScheduleFileSync } from '../schedule/store.ts';
import { compile, previewShown } from '../schedule/windows.ts';
import { dayOfDate } from '../schedule/zone.ts';
import { CliError, onlyOptions, usageError, type Options } from './users.ts';

const USAGE = 'usage: device-agent schedule show | set FILE|- | clear | preview [--from YYYY-MM-DD] [--days N] [--json]';

function stored(config: Config): Schedule | null {
  const s = readScheduleFile(config.scheduleFile);
  if (s.kind === 'invalid') throw new CliError(s.error);
  return s.kind === 'valid' ? s.schedule : null;
}

function previewOf(s: Schedule, options: Options) {
  const c = compile(s);
  const from = options.get('from');
  const fromDay = from === undefined ? c.zone.dayOf(Date.now()) : typeof from === 'string' ? dayOfDate(from) : null;
  if (fromDay === null) throw usageError('--from takes a date YYYY-MM-DD');
  const daysText = options.get('days') ?? '7';
  const days = Number(daysText);
  if (typeof daysText !== 'string' || !/^\d{1,3}$/.test(daysText) || days < 1 || days > 366)
    throw usageError('--days takes an integer from 1 to 366');
  return previewShown(c, fromDay, days);
}

function printPreview(p: ReturnType<typeof previewOf>, out: (line: string) => void): void {
  if (p.windows.length === 0) out('no window begins on these days');
  for (const w of p.windows) {
    const on = w.on.length === 1 && w.on[0]![0] === w.start && w.on[0]![1] === w.end ? '' : ` (${w.on.length} recording periods)`;
    out(`${w.start} to ${w.end}${on}`);
  }
  for (const k of p.skipped) out(`${k.date}: window ${k.window} skipped: ${k.reason}`);
}

export function scheduleCommand(
  sub: string | undefined,
  arg: string | undefined,
  config: Config,
  options: Options,
  out: (line: string) => void,
) {
  const json = options.has('json');
  switch (sub) {
    case 'show': {
      onlyOptions(options, ['json'], 'schedule show');
      const s = stored(config);
      if (json) return out(JSON.stringify({ schedule: s }, null, 2));
      if (!s) return out(`no schedule (${config.scheduleFile})`);
      out(`${config.scheduleFile}: ${s.enabled ? 'enabled' : 'disabled'}, zone ${s.timeZone}`);
      if (s.location) out(`location: ${s.location.latitude}, ${s.location.longitude}`);
      const r = s.recording;
      out(
        `recording: ${r.fileExtension}, ${r.sampleRate} Hz, ${r.channels} channel(s), ${r.segmentSeconds} s segments into ${r.directory}/, device ${r.device ?? '(audio.device)'}`,
      );
      for (const [i, w] of s.windows.entries()) {
        const extra = [
          w.days.length < 7 ? w.days.join(',') : '',
          w.dates ? `${w.dates.from} to ${w.dates.to}` : '',
          w.duty ? `${w.duty.onSeconds} s on, ${w.duty.offSeconds} s off` : '',
        ].filter(Boolean);
        out(`window ${i}: ${w.start} to ${w.end}${extra.length ? ` (${extra.join('; ')})` : ''}`);
      }
      out('next windows:');
      return printPreview(previewOf(s, new Map()), out);
    }
    case 'set': {
      onlyOptions(options, ['json'], 'schedule set');
      if (!arg) throw usageError(USAGE);
      let raw: unknown;
      try {
        raw = JSON.parse(readFileSync(arg === '-' ? 0 : arg, 'utf8'));
      } catch (err) {
        throw new CliError(`${arg === '-' ? 'standard input' : arg} is not a JSON document: ${(err as Error).message}`);
      }
      try {
        writeScheduleFileSync(config.scheduleFile, raw);
      } catch (err) {
        if (err instanceof ScheduleInvalid) throw new CliError(err.message);
        throw err;
      }
      const s = parseSchedule(raw);
      if (json) return out(JSON.stringify({ schedule: s }, null, 2));
      return out(`schedule stored in ${config.scheduleFile}; the agent applies it within 2 s`);
    }
    case 'clear':
      onlyOptions(options, [], 'schedule clear');
      if (arg) throw usageError(USAGE);
      out(removeScheduleFileSync(config.scheduleFile) ? `schedule removed from ${config.scheduleFile}` : 'there was no schedule');
      return;
    case 'preview': {
      onlyOptions(options, ['from', 'days', 'json'], 'schedule preview');
      if (arg) throw usageError(USAGE);
      const s = stored(config);
      if (!s) throw new CliError('no schedule');
      const p = previewOf(s, options);
      if (json) return out(JSON.stringify(p, null, 2));
      return printPreview(p, out);
    }
    default:
      throw usageError(USAGE);
  }
}
