// Helpers for the recording tests: start, poll the status, and read a file back with soxi.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { RecordingRecord } from '../../src/audio/record.ts';
import type { TestAgent } from './agent.ts';
import { bearer, jsonPost } from './http.ts';
import { eventually } from './proc.ts';

export const START = '/api/v1/audiofiles/audiorecordstart';
export const STATUS = '/api/v1/audiofiles/audiorecordstatus';

export function startRecording(agent: TestAgent, token: string, body: unknown): Promise<Response> {
  return jsonPost(agent.url + START, body, bearer(token));
}

export async function recordingStatus(agent: TestAgent, token: string): Promise<RecordingRecord> {
  const res = await fetch(agent.url + STATUS, { headers: bearer(token) });
  if (res.status !== 200) throw new Error(`status: ${res.status} ${await res.text()}`);
  return (await res.json()) as RecordingRecord;
}

/** Polls until the recording is no longer running. */
export async function waitForEnd(agent: TestAgent, token: string, timeoutMs = 20_000): Promise<RecordingRecord> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await recordingStatus(agent, token);
    if (r.state !== 'recording') return r;
    if (Date.now() > until) throw new Error(`recording still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface SoundInfo {
  type: string;
  rate: number;
  channels: number;
  seconds: number;
}

/** What soxi reads from the file's own header: a file soxi cannot read throws. */
export function soxi(file: string): SoundInfo {
  const ask = (flag: string) => execFileSync('soxi', [flag, file], { encoding: 'utf8' }).trim();
  return { type: ask('-t'), rate: Number(ask('-r')), channels: Number(ask('-c')), seconds: Number(ask('-D')) };
}

export interface Listener {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Bytes received so far. */
  body(): Buffer;
  ended: Promise<void>;
  close(): void;
}

/** A live stream (`/api/v1/audio/live?QUERY`) read with node:http, on a connection of its own. */
export function listenLive(agent: TestAgent, token: string, query: string): Promise<Listener> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: agent.port, path: `/api/v1/audio/live?${query}`, headers: bearer(token), agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        const ended = new Promise<void>((r) => {
          res.once('end', r);
          res.once('close', r);
          res.once('error', () => r());
        });
        resolve({ status: res.statusCode!, headers: res.headers, body: () => Buffer.concat(chunks), ended, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The segments stored under <baseDir>/recordings/scheduled (docs/schedule.md), sorted by name; and the temp files being written. */
export function scheduledSegments(baseDir: string): { files: string[]; temps: string[] } {
  const root = join(baseDir, 'recordings/scheduled');
  const files: string[] = [];
  const temps: string[] = [];
  if (!existsSync(root)) return { files, temps };
  for (const day of readdirSync(root).sort()) {
    for (const name of readdirSync(join(root, day)).sort()) (name.startsWith('.') ? temps : files).push(join(root, day, name));
  }
  return { files, temps };
}

/** The instant (epoch ms) a segment's name gives: `<YYYY-MM-DD>/<YYYYMMDD>_<HHMMSS>[_<n>].<ext>`, UTC (`_<n>`: its name was taken). */
export const segmentTime = (file: string): number =>
  Date.parse(file.replace(/.*\/(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})(?:_\d+)?\.(?:flac|wav|mp3)$/, '$1-$2-$3T$4:$5:$6Z'));

/** Changes the agent's `audio` config keys and reloads it (SIGHUP), returning once it says so. */
export async function reloadAudio(agent: TestAgent, audio: Record<string, unknown>): Promise<void> {
  const config = JSON.parse(readFileSync(agent.configFile, 'utf8'));
  writeFileSync(agent.configFile, JSON.stringify({ ...config, audio: { ...config.audio, ...audio } }));
  const before = agent.output().split('config reloaded').length;
  agent.child.kill('SIGHUP');
  assert.ok(await eventually(() => agent.output().split('config reloaded').length > before, 5000), agent.output());
}
