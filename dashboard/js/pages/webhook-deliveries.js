import { query } from '../api.js';
import { badge, busy, emptyState, errorBox, h, pager, replace, table, when } from '../dom.js';

const POLL_MS = 2000;

/** The delivery log of one endpoint; polls while any delivery is still pending. */
export function deliveryLog(ctx, webhook) {
  const { api } = ctx;
  const status = h('div', { 'aria-live': 'polite' });
  const listError = h('div', { 'aria-live': 'polite' });
  const list = h('div');
  const filter = h(
    'select',
    { id: 'delivery-status', name: 'status' },
    h('option', { value: '' }, 'Any status'),
    ['pending', 'succeeded', 'failed'].map((s) => h('option', { value: s }, s)),
  );
  let page = 1;
  let timer = null;
  let pollsLeft = 0;
  // Polling re-renders only on change, and reopens the attempt lists a person had open.
  let shown = '';
  const openIds = new Set();

  async function load() {
    clearTimeout(timer);
    try {
      const res = await api(
        'GET',
        `/v1/integrations/webhooks/${encodeURIComponent(webhook.id)}/deliveries${query({ page, limit: 20, status: filter.value })}`,
      );
      replace(listError);
      const json = JSON.stringify([res.data, res.pagination]);
      if (json === shown) return schedule(res.data);
      shown = json;
      replace(
        list,
        res.data.length
          ? [
              table(
                'Deliveries',
                [
                  { label: 'Event', cell: (d) => h('code', null, d.eventType) },
                  { label: 'Status', cell: (d) => badge(d.status) },
                  { label: 'Attempts', cell: (d) => String(d.attemptCount) },
                  { label: 'Last response', cell: (d) => (d.lastStatusCode === null ? (d.lastError ?? '—') : String(d.lastStatusCode)) },
                  { label: 'Created', cell: (d) => when(d.createdAt) },
                  { label: 'Details', cell: attemptsDetails },
                  ...(ctx.can('webhooks:write') ? [{ label: 'Actions', cell: retryButton }] : []),
                ],
                res.data,
              ),
              pager(res.pagination, (p) => {
                page = p;
                void load();
              }),
            ]
          : emptyState(
              'No deliveries yet.',
              'Send a test event above, or cause an event (for example create a lead) to see a delivery here.',
            ),
      );
      schedule(res.data);
    } catch (err) {
      replace(listError, errorBox(err));
    }
  }

  function schedule(rows) {
    const pending = rows.some((d) => d.status === 'pending');
    // Not yet inserted (no parent) or on screen: keep polling; once the page is left, stop.
    if ((pending || pollsLeft > 0) && (element.isConnected || !element.parentNode)) {
      pollsLeft = Math.max(0, pollsLeft - 1);
      timer = setTimeout(() => void load(), POLL_MS);
    }
  }

  function attemptsDetails(d) {
    const body = h('div', null, h('p', { class: 'loading' }, 'Loading attempts…'));
    const details = h('details', { class: 'attempts' }, h('summary', null, `Attempts (${d.attemptCount})`), body);
    details.addEventListener('toggle', async () => {
      if (!details.open) return openIds.delete(d.id);
      openIds.add(d.id);
      try {
        const { data } = await api('GET', `/v1/integrations/webhooks/deliveries/${encodeURIComponent(d.id)}`);
        replace(
          body,
          data.attempts.length
            ? h(
                'ol',
                { class: 'attempt-list' },
                data.attempts.map((a) =>
                  h(
                    'li',
                    null,
                    h(
                      'p',
                      null,
                      `Attempt ${a.attemptNumber}: `,
                      h('strong', null, a.statusCode === null ? 'no response' : `HTTP ${a.statusCode}`),
                      ` in ${a.latencyMs} ms, `,
                      when(a.createdAt),
                    ),
                    a.error ? h('p', { class: 'error-text' }, a.error) : null,
                    a.responseSnippet ? h('pre', { class: 'snippet' }, a.responseSnippet) : null,
                  ),
                ),
              )
            : h('p', null, 'No attempt has been made yet.'),
        );
      } catch (err) {
        replace(body, errorBox(err));
      }
    });
    if (openIds.has(d.id)) details.open = true;
    return details;
  }

  function retryButton(d) {
    const button = h('button', { type: 'button', 'aria-label': `Retry ${d.eventType} delivery` }, 'Retry');
    button.addEventListener('click', () =>
      busy(button, async () => {
        try {
          await api('POST', `/v1/integrations/webhooks/deliveries/${encodeURIComponent(d.id)}/retry`);
          replace(status, h('p', { class: 'notice' }, `Retry of the ${d.eventType} delivery started.`));
          pollsLeft = 5;
          await load();
        } catch (err) {
          replace(status, errorBox(err));
        }
      }),
    );
    return button;
  }

  filter.addEventListener('change', () => {
    page = 1;
    void load();
  });
  const refreshButton = h('button', { type: 'button', onclick: () => void load() }, 'Refresh');
  const element = h(
    'section',
    { class: 'card', 'aria-labelledby': 'deliveries-title' },
    h('h2', { id: 'deliveries-title' }, 'Delivery log'),
    h('div', { class: 'toolbar' }, h('label', { for: 'delivery-status' }, 'Status'), filter, refreshButton),
    status,
    listError,
    list,
  );
  void load();
  return {
    element,
    /** After a test send: the new delivery may not exist yet, so look a few more times. */
    refresh() {
      pollsLeft = 5;
      void load();
    },
  };
}
