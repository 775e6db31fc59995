// A private PulseAudio server with a null sink: a real-time paced "microphone" for
// sox/arecord through ALSA device "pulse" (libasound2-plugins), with no sound hardware.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';

export interface VirtualMic {
  /** Pass to every process that should capture from it (the agent, and through it sox/arecord). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function startVirtualMic(): VirtualMic {
  const dir = mkdtempSync(join(tmpdir(), 'da-pulse-'));
  // Its own runtime dir and HOME: no cookie or socket shared with anything else.
  const env = { XDG_RUNTIME_DIR: dir, HOME: dir, PULSE_SERVER: `unix:${join(dir, 'pulse/native')}` };
  const run = (cmd: string, args: string[]) =>
    execFileSync(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
  // As root pulseaudio warns "not intended to be run as root" and runs anyway.
  run('pulseaudio', [
    '-D',
    '--exit-idle-time=-1',
    '-n',
    '--load=module-native-protocol-unix auth-anonymous=1',
    '--load=module-null-sink sink_name=vsink',
  ]);
  run('pactl', ['set-default-source', 'vsink.monitor']);
  // The null sink renders in 2 s blocks while no client asks for less, and a recording
  // that connects then waits for the block in progress: one low-latency listener keeps
  // the blocks short, as a real microphone's are.
  const listener = spawn('parec', ['--latency-msec=20'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'ignore'] });
  listener.on('error', () => {
    /* pulseaudio-utils missing: recordings just start slower */
  });
  return {
    env,
    async stop() {
      listener.kill('SIGTERM');
      let pid = 0;
      try {
        pid = Number(readFileSync(join(dir, 'pulse/pid'), 'utf8').trim());
        if (pid > 0) process.kill(pid, 'SIGTERM');
      } catch {
        /* already gone: nothing to stop */
      }
      // It removes its own files on the way out: wait for it before removing the directory.
      for (let i = 0; i < 50 && pid > 0 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

/** Pink noise played into the virtual microphone for 10 minutes (a schedule's tests record it). */
export function pinkNoise(mic: VirtualMic): ChildProcess {
  return spawn('sox', ['-q', '-n', '-t', 'alsa', 'pulse', 'synth', '600', 'pinknoise', 'gain', '-10'], {
    env: { ...process.env, ...mic.env },
    stdio: 'ignore',
  });
}

/**
 * A suite whose tests share one virtual microphone playing pink noise, started before them and
 * stopped after; `synced` (a clock.syncedFile the tests write) is removed after them too.
 */
export function noisySuite(name: string, synced: string) {
  const s = suite<{ mic: VirtualMic; noise: ChildProcess }>(name);
  s.before((ctx) => {
    ctx.mic = startVirtualMic();
    ctx.noise = pinkNoise(ctx.mic);
  });
  s.after(async (ctx) => {
    rmSync(synced, { force: true });
    ctx.noise?.kill();
    await ctx.mic?.stop();
  });
  return s;
}
