// "Files": the current directory as a table with breadcrumbs; a directory name opens it, a
// file name downloads it; upload of several files by the picker or drag and drop, with a
// progress bar, and the API's refusals (too large, not allowed) shown as its own text. With
// `files:write`: new folder, rename and delete (file-actions.ts).
import { download, getJson, saveBlob, session, upload } from './api.ts';
import { fileActions } from './file-actions.ts';
import { fill, h } from './dom.ts';
import { bytes, visibleName, when } from './format.ts';
import type { Entry, Listing } from './types.ts';

const join = (dir: string, name: string) => (dir === '' ? name : `${dir}/${name}`);

export function filesView() {
  const canWrite = session.has('files:write');
  const columns = canWrite ? '4' : '3';
  const crumbs = h('ol', {});
  const rows = h('tbody', {});
  const caption = h('caption', { class: 'visually-hidden' });
  const picker = h('input', { id: 'upload-files', type: 'file', multiple: true });
  const progress = h('progress', { max: '1', value: '0', 'aria-label': 'Upload progress', hidden: true });
  const message = h('p', { role: 'status', class: 'note' });
  const error = h('p', { role: 'alert', class: 'error' });
  let cwd = '';
  const actions = canWrite
    ? fileActions({
        cwd: () => cwd,
        reload: () => open(cwd),
        say: (text) => {
          error.textContent = '';
          message.textContent = text;
        },
        fail: (err) => {
          message.textContent = '';
          error.textContent = (err as Error).message;
        },
      })
    : undefined;
  const el = h(
    'section',
    { 'aria-labelledby': 'h-files', class: 'card files' },
    h('h2', { id: 'h-files' }, 'Files'),
    h('nav', { 'aria-label': 'Breadcrumbs', class: 'crumbs' }, crumbs),
    actions?.toolbar,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        {},
        caption,
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Name'),
            h('th', { scope: 'col', class: 'num' }, 'Size'),
            h('th', { scope: 'col' }, 'Modified'),
            actions ? h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')) : null,
          ),
        ),
        rows,
      ),
    ),
    h(
      'div',
      { class: 'upload' },
      h('label', { for: picker.id }, 'Upload files'),
      picker,
      h('span', { class: 'hint' }, 'or drop files on this panel'),
      progress,
    ),
    message,
    error,
    actions?.dialog,
  );

  const link = (text: string, action: () => void, cls?: string) =>
    h(
      'a',
      {
        href: '#',
        class: cls,
        onclick: (event: Event) => {
          event.preventDefault();
          action();
        },
      },
      text,
    );

  const row = (e: Entry) => {
    const path = join(cwd, e.name);
    // Shown with its bidirectional controls escaped; the path sent is the name as it is.
    const shown = visibleName(e.name);
    const name =
      e.type === 'directory'
        ? link(shown, () => void open(path), 'dir')
        : link(
            shown,
            () => {
              error.textContent = '';
              download(path).then(
                (blob) => saveBlob(blob, e.name),
                (err: Error) => {
                  error.textContent = err.message;
                },
              );
            },
            'file',
          );
    // With the outbox on, a file verified in central storage carries a mark (docs/outbox.md).
    const nameCell =
      e.uploaded === true
        ? h('td', {}, name, ' ', h('span', { class: 'hint', title: 'verified in central storage by the outbox' }, 'uploaded'))
        : h('td', {}, name);
    return h(
      'tr',
      {},
      nameCell,
      h('td', { class: 'num' }, e.type === 'directory' ? 'folder' : bytes(e.sizeBytes)),
      h('td', {}, h('time', { datetime: e.modifiedAt, title: when(e.modifiedAt) }, when(e.modifiedAt, true))),
      actions?.rowButtons(e, nameCell),
    );
  };

  const showCrumbs = () => {
    const parts = cwd === '' ? [] : cwd.split('/');
    const items = [
      { label: 'Base directory', path: '' },
      ...parts.map((p, i) => ({ label: visibleName(p), path: parts.slice(0, i + 1).join('/') })),
    ];
    fill(
      crumbs,
      ...items.map((item, i) =>
        h(
          'li',
          {},
          i === items.length - 1 ? h('span', { 'aria-current': 'location' }, item.label) : link(item.label, () => void open(item.path)),
        ),
      ),
    );
  };

  async function open(path: string): Promise<void> {
    error.textContent = '';
    try {
      const listing = await getJson<Listing>(`/api/v1/files/list?path=${encodeURIComponent(path)}`);
      cwd = listing.path;
      showCrumbs();
      caption.textContent = `Contents of ${cwd === '' ? 'the base directory' : cwd}`;
      fill(
        rows,
        ...(listing.entries.length > 0
          ? listing.entries.map(row)
          : [h('tr', {}, h('td', { colspan: columns, class: 'empty' }, 'This directory is empty.'))]),
        listing.truncated
          ? h('tr', {}, h('td', { colspan: columns, class: 'empty' }, `Only the first ${listing.entries.length} entries are shown.`))
          : null,
      );
    } catch (err) {
      error.textContent = (err as Error).message;
    }
  }

  const send = async (files: File[]) => {
    if (files.length === 0) return;
    error.textContent = '';
    message.textContent = `Sending ${files.length === 1 ? files[0]!.name : `${files.length} files`}…`;
    progress.value = 0;
    progress.hidden = false;
    try {
      await upload(cwd, files, (f) => {
        progress.value = f;
      });
      message.textContent = `Uploaded ${files.length === 1 ? files[0]!.name : `${files.length} files`}.`;
      await open(cwd);
    } catch (err) {
      message.textContent = '';
      error.textContent = (err as Error).message;
    } finally {
      progress.hidden = true;
    }
  };

  picker.addEventListener('change', () => {
    const files = [...(picker.files ?? [])];
    picker.value = '';
    void send(files);
  });
  el.addEventListener('dragover', (event) => {
    event.preventDefault();
    el.classList.add('dropping');
  });
  el.addEventListener('dragleave', () => el.classList.remove('dropping'));
  el.addEventListener('drop', (event) => {
    event.preventDefault();
    el.classList.remove('dropping');
    void send([...(event.dataTransfer?.files ?? [])]);
  });

  return { el, open };
}
