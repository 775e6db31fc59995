// "Recording": microphone, duration and format, start and stop, the state, a level meter
// while the device is captured, "Listen" (the live stream played in the page), and when a
// recording has finished a player and a download of its file (fetched with the bearer header into a Blob).
import { download, getJson, postJson } from './api.ts';
import { listen, type Listening } from './listen.ts';
import { fill, h } from './dom.ts';
import { bytes, duration, when } from './format.ts';
import { FORMATS } from '../audio/argv.ts'; // pure, no I/O: the bundle takes the list alone
import type { Recording } from './types.ts';

interface DeviceList {
  configured: string;
  devices: Array<{ id: string; name: string; description: string; default: boolean }>;
}

/** What ended a recording, in words. */
const STOPPED_BY: Record<string, string> = {
  duration: 'it reached its duration',
  request: 'stopped on request',
  size: 'stopped at the download size limit',
  disk: 'stopped because the disk was nearly full',
  shutdown: 'stopped because the agent shut down',
};

function stateText(r: Recording): string {
  switch (r.state) {
    case 'idle':
      return 'Idle: no recording yet.';
    case 'recording':
      return `Recording ${r.fileExtension ?? ''} since ${when(r.startedAt)} (${duration(r.durationSeconds)} asked).`;
    case 'finished':
      return (
        `Finished: ${r.file ?? ''}, ${duration(r.durationSeconds)}, ${bytes(r.sizeBytes)}` +
        `${r.stoppedBy ? ` (${STOPPED_BY[r.stoppedBy] ?? r.stoppedBy})` : ''}.`
      );
    case 'failed':
      return `Failed: ${r.error ?? 'unknown error'}`;
  }
}

export function recordingView() {
  const seconds = h('input', { id: 'rec-duration', type: 'number', min: '0.1', step: '0.1', value: '5', inputmode: 'decimal' });
  const format = h('select', { id: 'rec-format' }, ...FORMATS.map((f) => h('option', { value: f }, f)));
  const device = h('select', { id: 'rec-device' }, h('option', { value: '' }, 'the configured microphone'));
  const refresh = h('button', { type: 'button', class: 'secondary' }, 'Refresh microphones');
  const listenButton = h('button', { type: 'button', class: 'secondary', 'aria-pressed': 'false' }, 'Listen');
  const meter = h('meter', { id: 'rec-level', min: '-60', max: '0', low: '-20', high: '-6', optimum: '-30', value: '-60' });
  const meterText = h('span', { class: 'level-text' }, 'no input measured');
  const levelRow = h(
    'div',
    { class: 'field level', hidden: true },
    h('label', { for: meter.id }, 'Input level'),
    h('div', { class: 'level-row' }, meter, meterText),
  );
  const start = h('button', { type: 'submit' }, 'Start recording');
  const stop = h('button', { type: 'button', class: 'secondary', disabled: true }, 'Stop recording');
  const state = h('p', { role: 'status', class: 'state' }, 'State: loading…');
  const error = h('p', { role: 'alert', class: 'error' });
  const result = h('div', { class: 'result' });
  const form = h(
    'form',
    { class: 'record-form', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: device.id }, 'Microphone'), device),
    h('div', { class: 'field' }, h('label', { for: seconds.id }, 'Duration (seconds)'), seconds),
    h('div', { class: 'field' }, h('label', { for: format.id }, 'Format'), format),
    h('div', { class: 'buttons' }, start, stop, listenButton, refresh),
  );
  const el = h(
    'section',
    { 'aria-labelledby': 'h-recording', class: 'card recording' },
    h('h2', { id: 'h-recording' }, 'Recording'),
    form,
    levelRow,
    state,
    error,
    result,
  );

  const loadDevices = async () => {
    const list = await getJson<DeviceList>('/api/v1/audio/devices');
    const chosen = device.value || list.configured;
    const ids = new Set(list.devices.map((d) => d.id));
    const options = list.devices.map((d) => h('option', { value: d.id }, d.id === d.name ? d.id : `${d.name} (${d.id})`));
    // The configured device may be a spelling ALSA's list does not show (hw:1,0).
    if (!ids.has(list.configured)) options.unshift(h('option', { value: list.configured }, `${list.configured} (configured)`));
    fill(device, ...options);
    device.value = ids.has(chosen) || chosen === list.configured ? chosen : list.configured;
  };
  const showError = (err: Error) => {
    error.textContent = err.message;
  };
  loadDevices().catch(showError);
  refresh.addEventListener('click', () => {
    loadDevices().catch(showError);
  });

  // The meter shows the level of the chosen device while it is captured (a recording or "Listen").
  let lastLevel = 0;
  let hideTimer: ReturnType<typeof setTimeout> | undefined;
  const level = (l: { device: string; peakDbfs: number; rmsDbfs: number }) => {
    if (l.device !== (device.value || l.device)) return;
    lastLevel = Date.now();
    levelRow.hidden = false;
    meter.value = Math.max(-60, l.peakDbfs);
    meterText.textContent = `${l.peakDbfs.toFixed(1)} dBFS peak, ${l.rmsDbfs.toFixed(1)} dBFS RMS`;
    clearTimeout(hideTimer);
    hideTimer = setTimeout(() => {
      if (Date.now() - lastLevel >= 1500) levelRow.hidden = true;
    }, 1600);
  };

  let listening: Listening | undefined;
  const stopListening = () => {
    listening?.stop();
    listening = undefined;
    listenButton.textContent = 'Listen';
    listenButton.setAttribute('aria-pressed', 'false');
  };
  listenButton.addEventListener('click', () => {
    if (listening) return stopListening();
    error.textContent = '';
    listenButton.textContent = 'Stop listening';
    listenButton.setAttribute('aria-pressed', 'true');
    listen(device.value).then(
      (l) => {
        listening = l;
        void l.ended.then(() => {
          if (listening === l) stopListening();
        });
      },
      (err: Error) => {
        stopListening();
        showError(err);
      },
    );
  });

  let shown = ''; // the finished file whose player is shown
  let blobUrl: string | undefined;

  const showFile = async (r: Recording) => {
    const key = `${r.file}@${r.finishedAt}`;
    if (r.state !== 'finished' || !r.file || key === shown) return;
    shown = key;
    const blob = await download(r.file);
    if (blobUrl) URL.revokeObjectURL(blobUrl);
    blobUrl = URL.createObjectURL(blob);
    const name = r.file.split('/').pop() ?? r.file;
    fill(
      result,
      h('audio', { controls: true, preload: 'metadata', src: blobUrl, 'aria-label': `Play ${name}` }),
      h('a', { href: blobUrl, download: name, class: 'button-link' }, `Download ${name}`),
    );
  };

  // Polled records can arrive after a newer one (a poll sent before Start answers after it):
  // records only move forward, by start time, then from recording to its end.
  let current: Recording | undefined;
  const isStale = (r: Recording) =>
    current?.startedAt != null &&
    (r.startedAt === null ||
      r.startedAt < current.startedAt ||
      (r.startedAt === current.startedAt && r.state === 'recording' && current.state !== 'recording'));

  const update = (r: Recording) => {
    if (isStale(r)) return;
    current = r;
    state.textContent = `State: ${stateText(r)}`;
    start.disabled = r.state === 'recording';
    stop.disabled = r.state !== 'recording';
    if (r.state === 'recording' || r.state === 'failed') {
      shown = '';
      fill(result);
    }
    showFile(r).catch((err: Error) => {
      error.textContent = err.message;
    });
  };

  const act = (fn: () => Promise<Recording>) => {
    error.textContent = '';
    fn().then(update, (err: Error) => {
      error.textContent = err.message;
    });
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    act(() =>
      postJson<Recording>('/api/v1/audiofiles/audiorecordstart', {
        duration: Number(seconds.value),
        fileExtension: format.value,
        ...(device.value ? { device: device.value } : {}),
      }),
    );
  });
  stop.addEventListener('click', () => act(() => postJson<Recording>('/api/v1/audiofiles/audiorecordstop')));

  return { el, update, level, destroy: stopListening };
}
