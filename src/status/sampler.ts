// The device status record (docs/api.md#device-status): static facts read once, figures sampled on
// demand at most once a second, concurrent requests sharing one refresh.
import { arch, cpus, hostname, platform, release, uptime } from 'node:os';
import { defaultDeviceId } from '../config/config.ts';
import { clockSynchronized, monotonicMs } from '../util/clock.ts';
import { isoTime } from '../util/time.ts';
import { VERSION } from '../util/version.ts';
import {
  findCpuThermalZone,
  loadPercent,
  readCpuModel,
  readCpuTimes,
  readDisk,
  readMemory,
  readNetwork,
  readOsRelease,
  readTemperature,
  type CpuTimes,
} from './probes.ts';

export interface StaticFacts {
  distro: string;
  release: string;
  cpuModel: string;
  cores: number;
  thermalZone: string | undefined;
}

export interface SamplerDeps {
  baseDir: string;
  recordingState: () => string;
  /** The config's deviceId (a reload may change it); default: the hostname's. */
  deviceId?: () => string;
  /** Whether a time service set the clock; default: clockSynchronized(null) (src/util/clock.ts). */
  clockSynchronized?: () => boolean;
  /** Milliseconds a sample is served before the next request refreshes it. */
  maxAgeMs?: number;
}

/**
 * Facts that do not change while the agent runs, read once from os-release(5),
 * /proc/cpuinfo and /sys/class/thermal: file reads only, no child process.
 */
async function readStaticFacts(): Promise<StaticFacts> {
  const [os, cpuModel, thermalZone] = await Promise.all([readOsRelease(), readCpuModel(), findCpuThermalZone()]);
  // os.cpus() reads /proc synchronously: once here, never per request.
  return { ...os, cpuModel, cores: cpus().length, thermalZone };
}

/** Serialised JSON and its length in bytes. */
export interface JsonText {
  text: string;
  length: number;
}

export type StatusRecord = Awaited<ReturnType<StatusSampler['sample']>>;

export class StatusSampler {
  private facts: Promise<StaticFacts> | undefined;
  private last: { at: number; value: StatusRecord } | undefined;
  private inflight: Promise<StatusRecord> | undefined;
  private prevCpu: CpuTimes | undefined;
  private serialised: { value: StatusRecord; state: string; body: JsonText } | undefined;

  constructor(private readonly deps: SamplerDeps) {}

  /** Starts the one-off work early (after listen) so the first request need not wait. */
  warm(): void {
    this.facts ??= readStaticFacts();
    void readCpuTimes().then((t) => {
      this.prevCpu ??= t;
    });
  }

  /**
   * The record as JSON, serialised once per sample and recording state; synchronous when
   * the cached sample is fresh (no promise on the hot path).
   */
  json(): JsonText | Promise<JsonText> {
    const value = this.current();
    return value instanceof Promise ? value.then((v) => this.serialise(v)) : this.serialise(value);
  }

  private serialise(value: StatusRecord): JsonText {
    const state = this.deps.recordingState();
    const c = this.serialised;
    if (c && c.value === value && c.state === state) return c.body;
    const text = JSON.stringify({ ...value, recording: { state } });
    const body = { text, length: Buffer.byteLength(text) };
    this.serialised = { value, state, body };
    return body;
  }

  /** The cached sample while it is younger than maxAgeMs. */
  private freshSample(): StatusRecord | undefined {
    const last = this.last;
    return last && monotonicMs() - last.at < (this.deps.maxAgeMs ?? 1000) ? last.value : undefined;
  }

  private current(): Promise<StatusRecord> | StatusRecord {
    const fresh = this.freshSample();
    if (fresh) return fresh;
    this.inflight ??= this.sample().then(
      (value) => {
        this.last = { at: monotonicMs(), value };
        this.inflight = undefined;
        return value;
      },
      (err) => {
        this.inflight = undefined;
        throw err;
      },
    );
    return this.inflight;
  }

  private async sample() {
    this.facts ??= readStaticFacts();
    const [facts, times, memory, disk] = await Promise.all([this.facts, readCpuTimes(), readMemory(), readDisk(this.deps.baseDir)]);
    const temperatureCelsius = await readTemperature(facts.thermalZone);
    const load = times && this.prevCpu ? loadPercent(this.prevCpu, times) : null;
    if (times) this.prevCpu = times;
    return {
      hostname: hostname(),
      deviceId: this.deps.deviceId?.() ?? defaultDeviceId(),
      platform: platform(),
      distro: facts.distro,
      release: facts.release,
      kernel: release(),
      arch: arch(),
      uptimeSeconds: Math.round(uptime()),
      time: isoTime(),
      clock: { synchronized: this.deps.clockSynchronized?.() ?? clockSynchronized(null) },
      cpu: { model: facts.cpuModel, cores: facts.cores, loadPercent: load, temperatureCelsius },
      memory: memory ?? { totalBytes: null, usedBytes: null, availableBytes: null },
      disk,
      network: readNetwork(),
      agent: { version: VERSION, uptimeSeconds: Math.round(process.uptime()) },
    };
  }
}
