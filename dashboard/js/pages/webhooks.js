import { query } from '../api.js';
import { badge, busy, confirmDialog, emptyState, errorBox, field, h, pager, readOnlyNote, replace, table, uid, when } from '../dom.js';
import { deliveryLog } from './webhook-deliveries.js';
import { secretSection } from './webhook-secret.js';

/** An event's family, `lead.*` for lead.created: as the API's subscriptions name it (contracts/webhook-events.ts). */
const familyOf = (event) => `${event.slice(0, event.indexOf('.'))}.*`;

/** Groups whose name is not a word to capitalise. */
const GROUP_LABELS = { sms: 'SMS' };

const BASE = '/v1/integrations/webhooks';
const envName = (env) => (env === 'sandbox' ? 'sandbox' : 'live');
const path = (id) => `${BASE}/${encodeURIComponent(id)}`;

export function webhooksPage(main, ctx) {
  const { api, can, env } = ctx;
  const writable = can('webhooks:write');
  const status = h('div', { 'aria-live': 'polite' });
  const list = h('div');
  const formSlot = h('div');
  let page = 1;

  async function load() {
    try {
      const res = await api('GET', `${BASE}${query({ page, limit: 20 })}`);
      if (!res.data.length) {
        return replace(
          list,
          emptyState(
            `No ${envName(env)} webhook endpoints yet.`,
            writable ? 'Add an endpoint above to receive events such as lead.created as signed POSTs.' : 'An admin can add one.',
          ),
        );
      }
      replace(
        list,
        table(
          'Webhook endpoints',
          [
            { label: 'URL', cell: (w) => h('a', { href: `#/webhooks/${w.id}`, class: 'url' }, w.url) },
            { label: 'Events', cell: (w) => w.events.join(', ') },
            { label: 'Description', cell: (w) => w.description ?? '—' },
            { label: 'Status', cell: (w) => badge(w.status) },
            { label: 'Created', cell: (w) => when(w.createdAt) },
          ],
          res.data,
        ),
        pager(res.pagination, (p) => {
          page = p;
          void load();
        }),
      );
    } catch (err) {
      replace(status, errorBox(err));
    }
  }

  replace(
    main,
    h('h1', null, 'Webhooks'),
    h('p', { class: 'lede' }, `Endpoints that receive ${envName(env)} events. Each delivery is signed with the endpoint's secret.`),
    formSlot,
    h('h2', null, 'Endpoints'),
    status,
    list,
  );
  if (!writable) replace(formSlot, readOnlyNote('webhook endpoints'));
  else
    void endpointForm(ctx, null).then((form) =>
      replace(formSlot, form ?? h('p', { class: 'notice' }, 'The event catalog could not be loaded; reload to add an endpoint.')),
    );
  void load();
}

/** Create (webhook null) or edit form; event types come from the catalog endpoint. */
async function endpointForm(ctx, webhook, onSaved) {
  const { api, navigate } = ctx;
  let catalog;
  try {
    catalog = (await api('GET', `${BASE}/catalog`)).data;
  } catch (err) {
    return errorBox(err);
  }
  const status = h('div', { 'aria-live': 'polite' });
  const url = field(
    'Endpoint URL',
    { type: 'url', name: 'url', required: true, value: webhook?.url ?? '', placeholder: 'https://example.com/hooks' },
    'Must be reachable from the service over HTTPS or HTTP.',
  );
  const description = field('Description', { type: 'text', name: 'description', maxlength: '500', value: webhook?.description ?? '' });
  const selected = new Set(webhook?.events ?? []);
  const all = h('input', { type: 'checkbox', id: uid('all'), name: 'events', value: '*', checked: selected.has('*') });
  const boxes = [];
  const families = [];
  const checkbox = (value, text) => {
    const id = uid('evt');
    const box = h('input', { type: 'checkbox', id, name: 'events', value, checked: selected.has(value) });
    boxes.push(box);
    return { box, row: h('div', { class: 'check' }, box, h('label', { for: id }, text)) };
  };
  const groups = Object.entries(catalog).map(([group, events]) =>
    h(
      'fieldset',
      { class: 'event-group' },
      h('legend', null, GROUP_LABELS[group] ?? group),
      [...new Set(events.map((e) => familyOf(e.event)))].map((family) => {
        const whole = checkbox(family, [h('code', null, family), ' ', h('span', { class: 'hint' }, 'all of these, and any added later')]);
        const members = events
          .filter((e) => familyOf(e.event) === family)
          .map((e) => checkbox(e.event, [h('code', null, e.event), ' ', h('span', { class: 'hint' }, e.description)]));
        families.push({ box: whole.box, members: members.map((m) => m.box) });
        return [whole.row, members.map((m) => m.row)];
      }),
    ),
  );
  // All events covers every box, a family its members: what a ticked box covers is not sent again.
  const syncAll = () => {
    for (const f of families) {
      f.box.disabled = all.checked;
      for (const m of f.members) m.disabled = all.checked || f.box.checked;
    }
  };
  for (const box of [all, ...families.map((f) => f.box)]) box.addEventListener('change', syncAll);
  syncAll();
  let statusSelect = null;
  if (webhook) {
    const id = uid('status');
    statusSelect = h(
      'select',
      { id, name: 'status' },
      ['active', 'disabled'].map((s) => h('option', { value: s, selected: webhook.status === s }, s)),
    );
    statusSelect = { input: statusSelect, field: h('div', { class: 'field' }, h('label', { for: id }, 'Status'), statusSelect) };
  }
  const submit = h('button', { type: 'submit', class: 'primary' }, webhook ? 'Save changes' : 'Add endpoint');
  const titleId = uid('form-title');
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, webhook ? 'Settings' : 'Add an endpoint'),
    url.field,
    description.field,
    h(
      'fieldset',
      { class: 'events' },
      h('legend', null, 'Events to send'),
      h('div', { class: 'check' }, all, h('label', { for: all.id }, 'All events (*)')),
      groups,
    ),
    statusSelect?.field,
    status,
    submit,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const events = all.checked ? ['*'] : boxes.filter((b) => b.checked && !b.disabled).map((b) => b.value);
    if (!events.length) return replace(status, errorBox({ message: 'Pick at least one event, or All events.' }));
    const body = { url: url.input.value.trim(), events, description: description.input.value.trim() || null };
    if (statusSelect) body.status = statusSelect.input.value;
    void busy(submit, async () => {
      try {
        const { data } = await api(webhook ? 'PATCH' : 'POST', webhook ? path(webhook.id) : BASE, body);
        if (webhook) {
          replace(status, h('p', { class: 'notice' }, 'Saved.'));
          onSaved?.(data);
        } else navigate(`#/webhooks/${data.id}`);
      } catch (err) {
        replace(status, errorBox(err));
      }
    });
  });
  return form;
}

export async function webhookDetailPage(main, ctx, id) {
  const { api, navigate } = ctx;
  const heading = h('h1', null, 'Webhook endpoint');
  replace(main, h('p', null, h('a', { href: '#/webhooks' }, '← All endpoints')), heading, h('p', { class: 'loading' }, 'Loading…'));
  let webhook;
  try {
    webhook = (await api('GET', path(id))).data;
  } catch (err) {
    return replace(
      main,
      h('p', null, h('a', { href: '#/webhooks' }, '← All endpoints')),
      heading,
      errorBox(err),
      err.status === 404 ? h('p', null, 'It may belong to the other environment: use the Sandbox mode switch above.') : null,
    );
  }
  const summary = h('div');
  const showSummary = (w) =>
    replace(
      summary,
      h('p', null, h('code', { class: 'url' }, w.url), ' ', badge(w.status)),
      w.disabledReason ? h('p', { class: 'notice' }, `Disabled by the service: ${w.disabledReason}`) : null,
    );
  showSummary(webhook);
  const log = deliveryLog(ctx, webhook);
  const testStatus = h('div', { 'aria-live': 'polite' });
  const testButton = h('button', { type: 'button', class: 'primary' }, 'Send test event');
  testButton.addEventListener('click', () =>
    busy(testButton, async () => {
      try {
        const { data } = await api('POST', `${path(webhook.id)}/test`);
        replace(testStatus, h('p', { class: 'notice' }, `Test event ${data.eventId} queued; it appears in the delivery log below.`));
        log.refresh();
      } catch (err) {
        replace(testStatus, errorBox(err));
      }
    }),
  );
  const deleteStatus = h('div', { 'aria-live': 'polite' });
  const deleteButton = h('button', { type: 'button', class: 'danger' }, 'Delete endpoint');
  deleteButton.addEventListener('click', async () => {
    const ok = await confirmDialog({
      title: 'Delete this endpoint?',
      body: `No more events will be sent to ${webhook.url}.`,
      confirmLabel: 'Delete endpoint',
      danger: true,
    });
    if (!ok) return deleteButton.focus();
    try {
      await api('DELETE', path(webhook.id));
      navigate('#/webhooks');
    } catch (err) {
      replace(deleteStatus, errorBox(err));
    }
  });
  if (!ctx.can('webhooks:write')) {
    // Testing, the secret (revealing it is a write: it lets the holder sign), editing and deleting.
    return replace(
      main,
      h('p', null, h('a', { href: '#/webhooks' }, '← All endpoints')),
      heading,
      summary,
      readOnlyNote('webhook endpoints'),
      log.element,
    );
  }
  const form = await endpointForm(ctx, webhook, (w) => {
    webhook = w;
    showSummary(w);
  });
  replace(
    main,
    h('p', null, h('a', { href: '#/webhooks' }, '← All endpoints')),
    heading,
    summary,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'test-title' },
      h('h2', { id: 'test-title' }, 'Test'),
      h('p', null, 'Sends a signed webhook.test event to this endpoint now.'),
      testButton,
      testStatus,
    ),
    log.element,
    secretSection(ctx, webhook),
    form,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'delete-title' },
      h('h2', { id: 'delete-title' }, 'Delete'),
      deleteButton,
      deleteStatus,
    ),
  );
}
