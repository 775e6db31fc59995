// Checks, before a recording starts, that its programs run and that sox can write mp3,
// so a missing program or encoder is a clear refusal instead of a broken file.
import { execFile } from 'node:child_process';
import type { AudioFormat, Stage } from './argv.ts';
import { noMp3, notInstalled } from './messages.ts';

/** The recording cannot start; the message names the program and what to install. */
export class RecorderUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecorderUnavailable';
  }
}

const PROBE_ARGS: Record<string, string[]> = { sox: ['-h'], arecord: ['--version'] };

function probe(program: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(program, PROBE_ARGS[program] ?? ['--version'], { timeout: 5000 }, (err, stdout) => {
      if (!err) return resolve(stdout);
      const code = (err as NodeJS.ErrnoException).code;
      reject(
        new RecorderUnavailable(
          code === 'ENOENT' || code === 'EACCES' ? notInstalled(program) : `${program} does not run: ${err.message.split('\n', 1)[0]}`,
        ),
      );
    });
  });
}

/** sox -h lists the file formats it was built with, libsox-fmt-mp3 adds "mp3". */
export function soxWritesMp3(help: string): boolean {
  const line = help.split('\n').find((l) => l.startsWith('AUDIO FILE FORMATS:')) ?? '';
  return line.split(/\s+/).includes('mp3');
}

export async function preflight(stages: Stage[], format: AudioFormat): Promise<void> {
  for (const program of new Set(stages.map((s) => s.program))) {
    const out = await probe(program);
    if (program === 'sox' && format === 'mp3' && !soxWritesMp3(out)) throw new RecorderUnavailable(noMp3());
  }
}
