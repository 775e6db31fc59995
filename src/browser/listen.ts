// "Listen": the device's live wav stream (GET /api/v1/audio/live) fetched with the bearer
// header (never a token in a URL) and played through Web Audio: the 44-byte WAV header
// gives rate and channels, then each chunk of 16-bit PCM is scheduled right after the last.
import { authHeaders, check } from './api.ts';

/** Seconds of sound queued ahead of the playhead, so that network jitter does not click. */
const AHEAD = 0.25;

export interface Listening {
  stop(): void;
  /** Resolves when the stream ends (stopped, the agent ended it, or the network dropped). */
  ended: Promise<void>;
}

export async function listen(device: string): Promise<Listening> {
  const abort = new AbortController();
  const query = `format=wav${device ? `&device=${encodeURIComponent(device)}` : ''}`;
  const res = await check(await fetch(`/api/v1/audio/live?${query}`, { headers: authHeaders(), signal: abort.signal }));
  const ctx = new AudioContext();
  const reader = res.body!.getReader();
  let head: Uint8Array = new Uint8Array(0);
  let rate = 0;
  let channels = 1;
  let carry: Uint8Array = new Uint8Array(0);
  let next = 0;

  const play = (bytes: Uint8Array) => {
    const frameBytes = 2 * channels;
    const all = carry.length ? concat(carry, bytes) : bytes;
    const frames = Math.floor(all.length / frameBytes);
    carry = all.slice(frames * frameBytes);
    if (frames === 0) return;
    const view = new DataView(all.buffer, all.byteOffset, frames * frameBytes);
    const buffer = ctx.createBuffer(channels, frames, rate);
    for (let c = 0; c < channels; c++) {
      const out = buffer.getChannelData(c);
      for (let i = 0; i < frames; i++) out[i] = view.getInt16((i * channels + c) * 2, true) / 32768;
    }
    const source = ctx.createBufferSource();
    source.buffer = buffer;
    source.connect(ctx.destination);
    next = Math.max(next, ctx.currentTime + AHEAD);
    source.start(next);
    next += buffer.duration;
  };

  const ended = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        if (rate === 0) {
          head = concat(head, value);
          if (head.length < 44) continue;
          const v = new DataView(head.buffer, head.byteOffset, 44);
          channels = v.getUint16(22, true);
          rate = v.getUint32(24, true);
          play(head.slice(44));
        } else {
          play(value);
        }
      }
    } catch {
      // aborted by stop(), or the connection dropped: either way the stream is over
    } finally {
      void ctx.close();
    }
  })();
  return { stop: () => abort.abort(), ended };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
