// The ALSA capture devices present now, as `arecord -L` lists them (ALSA's device hints:
// hardware cards and the PCMs of the ALSA configuration). Asked afresh on each request
// (about 30 ms), so a microphone plugged in after the start shows at the next one.
import { execFile } from 'node:child_process';
import { notInstalled } from './messages.ts';

export interface AudioDevice {
  /** What audio.device and a start's `device` take. */
  id: string;
  name: string;
  description: string;
  default: boolean;
}

/**
 * `arecord -L`: each device is a line at the margin (its id) followed by indented lines,
 * the first its name, the rest its description. Pure.
 */
export function parseDeviceList(text: string): AudioDevice[] {
  const devices: AudioDevice[] = [];
  let current: { id: string; lines: string[] } | undefined;
  const flush = () => {
    if (!current) return;
    const [name = current.id, ...rest] = current.lines;
    devices.push({ id: current.id, name, description: rest.join(' '), default: current.id === 'default' });
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (/^\s/.test(line)) {
      current?.lines.push(line.trim());
    } else {
      flush();
      current = { id: line.trim(), lines: [] };
    }
  }
  flush();
  return devices;
}

/** The devices now; rejects with a sentence naming alsa-utils when arecord is missing. */
export function listDevices(): Promise<AudioDevice[]> {
  return new Promise((resolve, reject) => {
    execFile('arecord', ['-L'], { timeout: 5000, maxBuffer: 1024 * 1024 }, (err, stdout) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') return reject(new Error(notInstalled('arecord')));
      // arecord -L exits 0 even without sound cards; anything else: what it listed, if anything.
      resolve(parseDeviceList(stdout ?? ''));
    });
  });
}

/**
 * Whether `id` names a capture device now: one of the list, or the configured
 * audio.device (which may be a spelling the list does not show, e.g. "hw:1,0").
 */
export async function knownDevice(id: string, configured: string): Promise<boolean> {
  if (id === configured) return true;
  return (await listDevices()).some((d) => d.id === id);
}
