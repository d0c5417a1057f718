import { download, query } from '../api.js';
import { badge, emptyState, errorBox, h, number, pager, replace, table, when } from '../dom.js';

const POLL_MS = 2000;
const STATUS_KIND = { queued: 'pending', running: 'pending', completed: 'succeeded', failed: 'failed' };

/** A native <progress> (announced by screen readers) with the share as text beside it. */
function progressBar(i) {
  const percent = Math.round(i.progress * 100);
  return h(
    'div',
    { class: 'import-progress' },
    h('progress', { max: '100', value: String(percent), 'aria-label': `Import ${i.id}: ${percent}% read` }),
    h('span', null, `${percent}%`),
  );
}

function counts(i) {
  const parts = [`${number(i.rowsRead)} read`, `${number(i.created)} created`, `${number(i.updated)} updated`];
  parts.push(`${number(i.skipped)} skipped`, `${number(i.failed)} failed`);
  return parts.join(' · ');
}

function pace(i) {
  if (i.status !== 'running' || i.rate === null) return '—';
  return `${number(Math.round(i.rate))} rows/s${i.etaSeconds === null ? '' : `, about ${number(i.etaSeconds)} s left`}`;
}

/** The badge, and for a failed import why it stopped (what the API's `error` says). */
function status(i) {
  return h('div', null, badge(i.status, STATUS_KIND[i.status]), i.error ? h('p', { class: 'import-error' }, i.error) : null);
}

/** Lead imports (POST /v1/leads/imports), newest first, refreshed while one is queued or running. */
export function importsPage(main, ctx) {
  const { api } = ctx;
  const list = h('div', { 'aria-live': 'polite' }, h('p', { class: 'loading' }, 'Loading…'));
  let page = 1;
  let timer = null;

  async function load() {
    clearTimeout(timer);
    let res;
    try {
      res = await api('GET', `/v1/leads/imports${query({ page, limit: 20 })}`);
    } catch (err) {
      return replace(list, errorBox(err));
    }
    if (!res.data.length) {
      return replace(list, emptyState('No imports yet.', 'Upload a CSV or NDJSON file, then POST /v1/leads/imports with its ID.'));
    }
    replace(
      list,
      table(
        'Lead imports',
        [
          { label: 'Import', cell: (i) => h('code', null, i.id) },
          { label: 'Started', cell: (i) => when(i.createdAt) },
          { label: 'Status', cell: status },
          { label: 'Progress', cell: progressBar },
          { label: 'Rows', cell: counts },
          { label: 'Pace', cell: pace },
          { label: 'Finished', cell: (i) => when(i.completedAt) },
        ],
        res.data,
      ),
      pager(res.pagination, (p) => {
        page = p;
        void load();
      }),
    );
    // Keep refreshing while an import works and the page is on screen.
    if (res.data.some((i) => i.status === 'queued' || i.status === 'running') && (list.isConnected || !list.parentNode)) {
      timer = setTimeout(() => void load(), POLL_MS);
    }
  }

  replace(
    main,
    h('h1', null, 'Lead imports'),
    h(
      'p',
      { class: 'lede' },
      'Files imported into leads, with the rows read so far. The rows that failed, with the reason for each: ',
      h('code', null, 'GET /v1/leads/imports/{import}/failures'),
      ', or as a file to correct and import again: ',
      h('code', null, '…/failures/download'),
      '.',
    ),
    list,
    ctx.can('leads:read') ? exportSection() : null,
  );
  void load();
}

/** Every lead of the environment as a CSV file (GET /v1/leads/export), the way back out of the service. */
function exportSection() {
  const outcome = h('div', { 'aria-live': 'polite' });
  const button = h('button', { type: 'button' }, 'Download leads as CSV');
  button.addEventListener('click', async () => {
    button.disabled = true;
    replace(outcome, h('p', { class: 'loading' }, 'Preparing the file…'));
    try {
      const name = await download('/v1/leads/export', 'leads.csv');
      replace(outcome, h('p', null, `Saved ${name}.`));
    } catch (err) {
      replace(outcome, errorBox(err));
    } finally {
      button.disabled = false;
    }
  });
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'export-heading' },
    h('h2', { id: 'export-heading' }, 'Export'),
    h(
      'p',
      { class: 'lede' },
      'Every lead of this environment, oldest first, with its custom fields as JSON in the last column. Filter it through the API: ',
      h('code', null, 'GET /v1/leads/export?status=qualified'),
      '. The file imports back with the same column names.',
    ),
    button,
    outcome,
  );
}
