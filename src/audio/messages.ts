// Turns what a capture program printed into a sentence a user can act on. Pure.
import type { PcmFormat } from './argv.ts';

/** Debian package that provides each program. */
export const PACKAGES: Record<string, string> = { sox: 'sox', arecord: 'alsa-utils' };

export function notInstalled(program: string): string {
  return `${program} is not installed or not on PATH: install the Debian package ${PACKAGES[program] ?? program}`;
}

/** A device captured at another format than asked (docs/schedule.md: the 409 of a manual start, a window's wait). */
export function capturingAt(device: string, f: PcmFormat): string {
  return `${device} is capturing at ${f.rate} Hz, ${f.channels} channel(s)`;
}

export function noMp3(): string {
  return 'sox cannot write mp3: install the Debian package libsox-fmt-mp3';
}

/** The last meaningful line of stderr: ALSA prints its own chatter before the program's verdict. */
export function lastLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? '';
}

/**
 * A failed capture: EBUSY means another program holds the device; ENOENT/ENODEV and
 * "Unknown PCM" mean the device is not there (unplugged, or a wrong audio.device).
 */
export function explainFailure(program: string, device: string, stderr: string, code: number | null, signal: string | null): string {
  if (/Device or resource busy/i.test(stderr)) {
    return `${program}: the audio device "${device}" is busy: another program is using the microphone; stop it and try again`;
  }
  if (/No such device|No such file or directory|Unknown PCM|Cannot get card index/i.test(stderr)) {
    return `${program}: the audio device "${device}" was not found: check that the microphone is plugged in and that audio.device names it ("arecord -L" lists devices)`;
  }
  if (/No space left on device|Disk quota exceeded/i.test(stderr)) {
    return `${program}: the disk holding the recordings is full (no space left on device): free some space there and start the recording again`;
  }
  if (signal === 'SIGKILL' || signal === 'SIGTERM') {
    return (
      `${program} was killed by ${signal} before the recording was complete (another program or the ` +
      'system ended it, e.g. out of memory); nothing was kept: start the recording again'
    );
  }
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  const detail = lastLine(stderr);
  return `${program} ${how}${detail ? `: ${detail}` : ''}`;
}

/** The capture program outlived its duration by the watchdog's margin: it hangs (stopped, stuck device). */
export function hung(program: string, duration: number, marginSeconds: number): string {
  return (
    `${program} was still running ${marginSeconds.toFixed(0)} s after the ${duration} s recording should have ended ` +
    '(it hung: stopped, or the audio device stalled); it was killed and nothing was kept: start the recording again'
  );
}

/** The program exited as if done, but the file is shorter than asked: something outside stopped it. */
export function endedEarly(program: string, seconds: number, duration: number): string {
  return (
    `${program} stopped after ${seconds.toFixed(2)} s of the ${duration} s asked (ended by a signal from outside ` +
    'the agent); the partial recording was not kept: start the recording again'
  );
}

/**
 * A device that cannot give the format asked: arecord says so ("rate is not accurate" is
 * only a warning to it, and it would go on at the other rate), or ALSA has no such
 * channel count or sample format. null when stderr says nothing of the kind.
 */
export function refusal(device: string, f: PcmFormat, stderr: string): string | null {
  const rate = /rate is not accurate \(requested = (\d+)Hz, got = (\d+)Hz\)/.exec(stderr);
  if (rate) return `the audio device "${device}" refused the sample rate ${rate[1]} Hz (it offers ${rate[2]} Hz)`;
  if (/Channels count non available/.test(stderr))
    return `the audio device "${device}" refused ${f.channels} channel${f.channels === 1 ? '' : 's'}`;
  if (/Sample format non available/.test(stderr)) return `the audio device "${device}" refused 16-bit samples`;
  return null;
}

/** Why a capture ended that the agent did not stop: at its start, or mid-way (unplugged, killed). */
export function explainCaptureEnd(
  program: string,
  device: string,
  f: PcmFormat,
  stderr: string,
  code: number | null,
  signal: string | null,
): string {
  const refused = refusal(device, f, stderr);
  if (refused) return refused;
  if (/Device or resource busy|No such device|No such file or directory|Unknown PCM|Cannot get card index|No space left/i.test(stderr)) {
    return explainFailure(program, device, stderr, code, signal);
  }
  if (/Input\/output error/i.test(stderr)) {
    return `${program}: the audio device "${device}" stopped delivering sound (input/output error: unplugged?)`;
  }
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  const detail = lastLine(stderr);
  return `${program} capturing from "${device}" ${how}${detail ? `: ${detail}` : ''}`;
}
