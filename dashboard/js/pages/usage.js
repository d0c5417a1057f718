import { query } from '../api.js';
import { emptyState, errorBox, field, h, number, pager, replace, table, when } from '../dom.js';

const RESOURCE_TYPES = [
  'api-keys',
  'integrations/webhooks',
  'leads',
  'users',
  'teams',
  'campaigns',
  'workflows',
  'config/statuses',
  'landing-pages',
];

export function usagePage(main, ctx) {
  replace(main, h('h1', null, 'Usage and audit log'), usageCard(ctx), auditCard(ctx));
}

function usageCard({ api, env }) {
  const body = h('div', null, h('p', { class: 'loading' }, 'Loading…'));
  void api('GET', '/v1/usage').then(
    ({ data }) => {
      const { current, limit, remaining } = data.calls;
      const pct = limit > 0 ? Math.min(100, Math.round((current / limit) * 100)) : 0;
      replace(
        body,
        h('p', null, 'Plan: ', h('strong', { class: 'plan' }, data.plan)),
        h('label', { for: 'quota-meter', class: 'meter-label' }, 'API calls this month'),
        h('meter', { id: 'quota-meter', min: '0', max: String(limit), value: String(current), high: String(limit * 0.8), optimum: '0' }),
        h(
          'p',
          { class: 'quota' },
          `${number(current)} of ${number(limit)} calls used (${pct}%), ${number(remaining)} left. The period ends `,
          when(data.period.end),
          '.',
        ),
        h(
          'p',
          null,
          'Rate limit: ',
          h('strong', null, `${number(data.rateLimit.perMinute)} requests per minute`),
          `, bursts of up to ${number(data.rateLimit.burstPerSecond)} per second. Over either, the API answers 429 with Retry-After.`,
        ),
        env === 'sandbox'
          ? h('p', { class: 'hint' }, 'Sandbox calls do not count toward the monthly quota; only live API-key calls do.')
          : h('p', { class: 'hint' }, 'Calls made with live API keys count toward the monthly quota.'),
      );
    },
    (err) => replace(body, errorBox(err)),
  );
  return h('section', { class: 'card', 'aria-labelledby': 'usage-title' }, h('h2', { id: 'usage-title' }, 'Usage'), body);
}

/** A date input's day as the start or end of that day in the browser's time zone, as ISO 8601. */
const dayBoundary = (value, end) => (value ? new Date(`${value}T${end ? '23:59:59.999' : '00:00:00'}`).toISOString() : undefined);

function auditCard({ api }) {
  const resource = field('Resource type', { type: 'text', name: 'resourceType', list: 'resource-types', placeholder: 'e.g. api-keys' });
  const action = field('Action', { type: 'text', name: 'action', placeholder: 'e.g. POST /v1/api-keys' });
  const from = field('From', { type: 'date', name: 'createdFrom' });
  const to = field('To', { type: 'date', name: 'createdTo' });
  const status = h('div', { 'aria-live': 'polite' });
  const list = h('div');
  let page = 1;

  async function load() {
    if (from.input.value && to.input.value && from.input.value > to.input.value) {
      return replace(status, errorBox({ message: 'The From date must be on or before the To date.' }));
    }
    const params = {
      page,
      limit: 20,
      resourceType: resource.input.value.trim(),
      action: action.input.value.trim(),
      createdFrom: dayBoundary(from.input.value, false),
      createdTo: dayBoundary(to.input.value, true),
    };
    try {
      const res = await api('GET', `/v1/audit-logs${query(params)}`);
      replace(status, h('p', { class: 'hint' }, `${number(res.pagination?.total ?? res.data.length)} entries match.`));
      replace(
        list,
        res.data.length
          ? [
              table(
                'Audit log',
                [
                  { label: 'Time', cell: (a) => when(a.createdAt) },
                  { label: 'Action', cell: (a) => h('code', null, a.action) },
                  { label: 'Resource', cell: (a) => [a.resourceType, a.resourceId ? [' ', h('code', null, a.resourceId)] : null] },
                  { label: 'Status', cell: (a) => String(a.statusCode) },
                  { label: 'Actor', cell: (a) => h('code', null, a.actorId) },
                  { label: 'Via', cell: (a) => (a.apiKeyId ? ['API key ', h('code', null, a.apiKeyId)] : 'Dashboard sign-in') },
                ],
                res.data,
              ),
              pager(res.pagination, (p) => {
                page = p;
                void load();
              }),
            ]
          : emptyState('No audit entries match.', 'Every create, update and delete is recorded here; widen the filters or clear them.'),
      );
    } catch (err) {
      replace(status, errorBox(err));
    }
  }

  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Audit log filters' },
    resource.field,
    h(
      'datalist',
      { id: 'resource-types' },
      RESOURCE_TYPES.map((t) => h('option', { value: t })),
    ),
    action.field,
    from.field,
    to.field,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Apply filters'),
      h('button', { type: 'reset' }, 'Clear'),
    ),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    page = 1;
    void load();
  });
  form.addEventListener('reset', () => {
    page = 1;
    setTimeout(() => void load());
  });
  void load();
  return h('section', { class: 'card', 'aria-labelledby': 'audit-title' }, h('h2', { id: 'audit-title' }, 'Audit log'), form, status, list);
}
