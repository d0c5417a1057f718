/**
 * DOM helpers. Every value is added as a text node or an attribute, never parsed as HTML, so data
 * from the API cannot inject markup (lint forbids innerHTML and friends under dashboard/).
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (k === 'class') el.className = v;
    else if (k === 'value' || k === 'checked') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

let ids = 0;
export const uid = (prefix) => `${prefix}-${++ids}`;

export function when(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return h('time', { datetime: iso, title: iso }, d.toLocaleString());
}

export const number = (n) => new Intl.NumberFormat().format(n);

export function badge(text, kind = text) {
  return h('span', { class: `badge badge-${String(kind).replace(/[^a-z]/g, '')}` }, text);
}

/** A labelled input; returns {field, input}. */
export function field(label, inputProps = {}, hint) {
  const id = inputProps.id ?? uid('f');
  const hintId = hint ? `${id}-hint` : undefined;
  const input = h(inputProps.tag ?? 'input', { ...inputProps, tag: undefined, id, 'aria-describedby': hintId });
  return {
    input,
    field: h('div', { class: 'field' }, h('label', { for: id }, label), input, hint ? h('p', { class: 'hint', id: hintId }, hint) : null),
  };
}

/** A readable block for an API error: the envelope's message and each field error. */
export function errorBox(err) {
  const errors = Array.isArray(err?.errors) ? err.errors : [];
  return h(
    'div',
    { class: 'error', role: 'alert' },
    h('p', null, h('strong', null, 'Error: '), err?.message ?? String(err)),
    errors.length
      ? h(
          'ul',
          null,
          errors.map((e) => h('li', null, e.field ? `${e.field}: ` : '', e.message)),
        )
      : null,
  );
}

export function emptyState(title, next) {
  return h('div', { class: 'empty' }, h('p', null, h('strong', null, title)), next ? h('p', null, next) : null);
}

/** A table that stacks into labelled cards at phone width (each cell carries its column label). */
export function table(caption, columns, rows) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      null,
      h('caption', { class: 'sr-only' }, caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          columns.map((c) => h('th', { scope: 'col' }, c.label)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((row) =>
          h(
            'tr',
            null,
            columns.map((c) => h('td', { 'data-label': c.label }, c.cell(row))),
          ),
        ),
      ),
    ),
  );
}

/** Previous/next buttons for a list envelope's pagination. */
export function pager(pagination, go) {
  if (!pagination || pagination.totalPages <= 1) return null;
  const { page, totalPages, total } = pagination;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    h('button', { type: 'button', disabled: !pagination.hasPrev, onclick: () => go(page - 1) }, 'Previous'),
    h('span', null, `Page ${page} of ${totalPages} (${number(total)} in all)`),
    h('button', { type: 'button', disabled: !pagination.hasNext, onclick: () => go(page + 1) }, 'Next'),
  );
}

/** A modal confirmation (native <dialog>: focus is trapped, Escape cancels). Resolves true or false. */
export function confirmDialog({ title, body, confirmLabel, danger = false }) {
  return new Promise((resolve) => {
    const titleId = uid('dialog-title');
    const dialog = h(
      'dialog',
      { 'aria-labelledby': titleId, class: 'dialog' },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, title),
        h('p', null, body),
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'submit', value: 'cancel', autofocus: true }, 'Cancel'),
          h('button', { type: 'submit', value: 'confirm', class: danger ? 'danger' : 'primary' }, confirmLabel),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** A read-only, selectable secret with a copy button and a live status line. */
export function secretField(label, value) {
  const id = uid('secret');
  const status = h('span', { class: 'copy-status', role: 'status' });
  const input = h('input', { id, type: 'text', readonly: true, value, class: 'secret', spellcheck: 'false', autocomplete: 'off' });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      replace(status, 'Copied to the clipboard');
    } catch {
      input.select();
      const ok = document.execCommand?.('copy');
      replace(status, ok ? 'Copied to the clipboard' : 'Selected: press Ctrl+C (or ⌘C) to copy');
    }
  };
  return {
    input,
    field: h(
      'div',
      { class: 'field' },
      h('label', { for: id }, label),
      h('div', { class: 'secret-row' }, input, h('button', { type: 'button', onclick: copy }, 'Copy')),
      status,
    ),
  };
}

/** Disables a button while `work` runs, so a double click never sends twice. */
export async function busy(button, work) {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

/** Said where a page leaves out what the user's role cannot change. */
export function readOnlyNote(what) {
  return h('p', { class: 'notice', role: 'note' }, `Your role can view ${what} but not change them. Ask an admin for write access.`);
}
