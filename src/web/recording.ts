// "Recording": duration and format, start and stop, the state, and when a recording has
// finished a player and a download of its file (fetched with the bearer header into a Blob).
import { download, postJson } from './api.ts';
import { fill, h } from './dom.ts';
import { bytes, duration, when } from './format.ts';
import { FORMATS } from '../audio/argv.ts'; // pure, no I/O: the bundle takes the list alone
import type { Recording } from './types.ts';


function stateText(r: Recording): string {
  switch (r.state) {
    case 'idle': return 'Idle: no recording yet.';
    case 'recording': return `Recording ${r.fileExtension ?? ''} since ${when(r.startedAt)} (${duration(r.durationSeconds)} asked).`;
    case 'finished': return `Finished: ${r.file ?? ''}, ${duration(r.durationSeconds)}, ${bytes(r.sizeBytes)}.`;
    case 'failed': return `Failed: ${r.error ?? 'unknown error'}`;
  }
}

export function recordingView() {
  const seconds = h('input', { id: 'rec-duration', type: 'number', min: '0.1', step: '0.1', value: '5', inputmode: 'decimal' });
  const format = h('select', { id: 'rec-format' }, ...FORMATS.map((f) => h('option', { value: f }, f)));
  const start = h('button', { type: 'submit' }, 'Start recording');
  const stop = h('button', { type: 'button', class: 'secondary', disabled: true }, 'Stop recording');
  const state = h('p', { role: 'status', class: 'state' }, 'State: loading…');
  const error = h('p', { role: 'alert', class: 'error' });
  const result = h('div', { class: 'result' });
  const form = h('form', { class: 'record-form', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: seconds.id }, 'Duration (seconds)'), seconds),
    h('div', { class: 'field' }, h('label', { for: format.id }, 'Format'), format),
    h('div', { class: 'buttons' }, start, stop));
  const el = h('section', { 'aria-labelledby': 'h-recording', class: 'card recording' },
    h('h2', { id: 'h-recording' }, 'Recording'), form, state, error, result);

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
    fill(result,
      h('audio', { controls: true, preload: 'metadata', src: blobUrl, 'aria-label': `Play ${name}` }),
      h('a', { href: blobUrl, download: name, class: 'button-link' }, `Download ${name}`));
  };

  // Polled records can arrive after a newer one (a poll sent before Start answers after it):
  // records only move forward, by start time, then from recording to its end.
  let current: Recording | undefined;
  const isStale = (r: Recording) => current?.startedAt != null && (r.startedAt === null || r.startedAt < current.startedAt ||
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
    showFile(r).catch((err: Error) => { error.textContent = err.message; });
  };

  const act = (fn: () => Promise<Recording>) => {
    error.textContent = '';
    fn().then(update, (err: Error) => { error.textContent = err.message; });
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    act(() => postJson<Recording>('/api/v1/audiofiles/audiorecordstart', { duration: Number(seconds.value), fileExtension: format.value }));
  });
  stop.addEventListener('click', () => act(() => postJson<Recording>('/api/v1/audiofiles/audiorecordstop')));

  return { el, update };
}
