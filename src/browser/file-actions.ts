// The files view's changes, offered only to a user with `files:write`: "New folder", and per
// row "Rename" (in place) and "Delete" (after a confirmation naming the entry). Every
// refusal is the API's own text; the API decides, the page only hides what cannot work.
import { send } from './api.ts';
import { h, uid } from './dom.ts';
import { visibleName } from './format.ts';
import type { Entry } from './types.ts';

const join = (dir: string, name: string) => (dir === '' ? name : `${dir}/${name}`);

export interface ActionsContext {
  cwd: () => string;
  /** Lists the current directory again. */
  reload: () => Promise<void>;
  say: (text: string) => void;
  fail: (err: unknown) => void;
}

export function fileActions(ctx: ActionsContext) {
  // The confirmation: a modal dialog (Escape cancels, focus stays inside), Cancel focused first.
  const question = h('p', { id: uid('confirm'), class: 'question' });
  const detail = h('p', { class: 'note' });
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  const confirm = h('button', { type: 'button', class: 'danger' }, 'Delete');
  const dialog = h(
    'dialog',
    { 'aria-labelledby': question.id, class: 'confirm card' },
    question,
    detail,
    h('div', { class: 'buttons' }, cancel, confirm),
  );
  let pending: (() => Promise<void>) | undefined;
  let returnTo: HTMLElement | null = null;
  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => {
    pending = undefined;
    returnTo?.focus();
  });
  confirm.addEventListener('click', () => {
    const act = pending;
    dialog.close();
    void act?.();
  });

  const askDelete = (e: Entry, opener: HTMLElement) => {
    const path = join(ctx.cwd(), e.name);
    const shown = visibleName(e.name);
    question.textContent = e.type === 'directory' ? `Delete the folder “${shown}” and everything in it?` : `Delete “${shown}”?`;
    detail.textContent = 'This cannot be undone.';
    returnTo = opener;
    pending = async () => {
      try {
        await send(`/api/v1/files?path=${encodeURIComponent(path)}${e.type === 'directory' ? '&recursive=true' : ''}`, 'DELETE');
        ctx.say(`Deleted ${shown}.`);
        returnTo = null;
        await ctx.reload();
      } catch (err) {
        ctx.fail(err);
      }
    };
    dialog.showModal();
    cancel.focus();
  };

  /** Replaces the name cell by a small form until it is saved or cancelled. */
  const rename = (e: Entry, cell: HTMLElement, opener: HTMLElement) => {
    const before = [...cell.childNodes];
    const input = h('input', { id: uid('rename'), value: e.name, autocomplete: 'off', spellcheck: 'false' });
    const back = () => {
      cell.replaceChildren(...before);
      opener.focus();
    };
    const form = h(
      'form',
      { class: 'inline', novalidate: true },
      h('label', { for: input.id, class: 'visually-hidden' }, `New name for ${visibleName(e.name)}`),
      input,
      h('button', { type: 'submit' }, 'Save'),
      h('button', { type: 'button', class: 'secondary', onclick: back }, 'Cancel'),
    );
    form.addEventListener('keydown', (event) => {
      if ((event as KeyboardEvent).key === 'Escape') back();
    });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const name = input.value;
      if (name === e.name) return back();
      const to = join(ctx.cwd(), name);
      send('/api/v1/files/move', 'POST', { from: join(ctx.cwd(), e.name), to }).then(async () => {
        ctx.say(`Renamed ${visibleName(e.name)} to ${visibleName(name)}.`);
        await ctx.reload();
      }, ctx.fail);
    });
    cell.replaceChildren(form);
    input.focus();
    input.setSelectionRange(0, e.type === 'file' && e.name.lastIndexOf('.') > 0 ? e.name.lastIndexOf('.') : e.name.length);
  };

  /** The row's buttons; their accessible names say which entry they act on. */
  const rowButtons = (e: Entry, nameCell: HTMLElement) => {
    const renameButton: HTMLButtonElement = h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'aria-label': `Rename ${visibleName(e.name)}`,
        onclick: () => rename(e, nameCell, renameButton),
      },
      'Rename',
    );
    const deleteButton: HTMLButtonElement = h(
      'button',
      { type: 'button', class: 'danger small', 'aria-label': `Delete ${visibleName(e.name)}`, onclick: () => askDelete(e, deleteButton) },
      'Delete',
    );
    return h('td', { class: 'actions' }, renameButton, deleteButton);
  };

  // "New folder": a button that opens a one-field form above the table.
  const folderName = h('input', { id: uid('new-folder'), autocomplete: 'off', spellcheck: 'false' });
  const folderForm = h(
    'form',
    { class: 'inline', novalidate: true, hidden: true },
    h('label', { for: folderName.id }, 'Folder name'),
    folderName,
    h('button', { type: 'submit' }, 'Create'),
    h('button', { type: 'button', class: 'secondary', onclick: () => closeFolder() }, 'Cancel'),
  );
  const newFolder = h('button', { type: 'button', class: 'secondary', 'aria-expanded': 'false' }, 'New folder');
  const closeFolder = () => {
    folderForm.hidden = true;
    newFolder.setAttribute('aria-expanded', 'false');
    newFolder.focus();
  };
  newFolder.addEventListener('click', () => {
    folderForm.hidden = false;
    newFolder.setAttribute('aria-expanded', 'true');
    folderName.value = '';
    folderName.focus();
  });
  folderForm.addEventListener('keydown', (event) => {
    if ((event as KeyboardEvent).key === 'Escape') closeFolder();
  });
  folderForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = folderName.value.trim();
    if (name === '') return folderName.focus();
    send('/api/v1/files/mkdir', 'POST', { path: join(ctx.cwd(), name) }).then(async () => {
      ctx.say(`Created folder ${visibleName(name)}.`);
      closeFolder();
      await ctx.reload();
    }, ctx.fail);
  });
  const toolbar = h('div', { class: 'file-tools' }, newFolder, folderForm);

  return { toolbar, dialog, rowButtons };
}
