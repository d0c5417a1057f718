import { query } from '../api.js';
import { badge, busy, confirmDialog, emptyState, errorBox, h, pager, replace, table, when } from '../dom.js';

/** Which buttons a campaign in each status offers (spec 3: draft, active, paused, completed). */
const ACTIONS = {
  active: ['pause', 'complete'],
  paused: ['resume', 'complete'],
  draft: [],
  completed: [],
};
const LABELS = { pause: 'Pause', resume: 'Resume', complete: 'Complete' };

/** Link into the Temporal UI for one enrollment's workflow, `campaign/<campaignId>/lead/<leadId>`. */
export function enrollmentWorkflowUrl(config, campaignId, leadId) {
  const base = /^https?:\/\//.test(config.temporalUiUrl) ? config.temporalUiUrl : 'http://127.0.0.1:8233';
  const ns = encodeURIComponent(config.temporalNamespace || 'default');
  return `${base}/namespaces/${ns}/workflows/${encodeURIComponent(`campaign/${campaignId}/lead/${leadId}`)}`;
}

export function campaignsPage(main, ctx) {
  const { api } = ctx;
  const status = h('div', { 'aria-live': 'polite' });
  const list = h('div', null, h('p', { class: 'loading' }, 'Loading…'));
  let page = 1;

  async function load() {
    let res;
    try {
      res = await api('GET', `/v1/campaigns${query({ page, limit: 20 })}`);
    } catch (err) {
      if (err.status === 404) {
        return replace(
          list,
          emptyState(
            'Campaigns are not available on this server yet.',
            'This server has no /v1/campaigns API. Once it is deployed, campaigns will be listed here.',
          ),
        );
      }
      return replace(list, errorBox(err));
    }
    if (!res.data.length) {
      return replace(list, emptyState('No campaigns yet.', 'Create one with POST /v1/campaigns, then manage it here.'));
    }
    replace(
      list,
      table(
        'Campaigns',
        [
          { label: 'Name', cell: (c) => c.name },
          { label: 'Type', cell: (c) => c.type ?? '—' },
          { label: 'Status', cell: (c) => badge(c.status) },
          { label: 'Created', cell: (c) => when(c.createdAt) },
          ...(ctx.can('campaigns:write') ? [{ label: 'Actions', cell: actions }] : []),
          { label: 'Enrollments', cell: enrollments },
        ],
        res.data,
      ),
      pager(res.pagination, (p) => {
        page = p;
        void load();
      }),
    );
  }

  function actions(c) {
    const names = ACTIONS[c.status] ?? [];
    if (!names.length) return '—';
    return h(
      'div',
      { class: 'actions' },
      names.map((action) => {
        const button = h(
          'button',
          { type: 'button', class: action === 'complete' ? 'danger' : undefined, 'aria-label': `${LABELS[action]} ${c.name}` },
          LABELS[action],
        );
        button.addEventListener('click', async () => {
          if (action === 'complete') {
            const ok = await confirmDialog({
              title: `Complete “${c.name}”?`,
              body: 'Every running enrollment ends now and no further messages are sent. This cannot be undone.',
              confirmLabel: 'Complete campaign',
              danger: true,
            });
            if (!ok) return button.focus();
          }
          await busy(button, async () => {
            try {
              const r = await api('POST', `/v1/campaigns/${encodeURIComponent(c.id)}/${action}`);
              replace(status, h('p', { class: 'notice' }, r.message ?? `${LABELS[action]}d “${c.name}”.`));
              await load();
            } catch (err) {
              replace(status, errorBox(err));
            }
          });
        });
        return button;
      }),
    );
  }

  function enrollments(c) {
    const body = h('div', null, h('p', { class: 'loading' }, 'Loading enrollments…'));
    const details = h('details', null, h('summary', null, 'Enrollments'), body);
    details.addEventListener('toggle', async () => {
      if (!details.open) return;
      try {
        const { data } = await api('GET', `/v1/campaigns/${encodeURIComponent(c.id)}/enrollments${query({ limit: 50 })}`);
        replace(
          body,
          data.length
            ? h(
                'ul',
                { class: 'enrollments' },
                data.map((e) =>
                  h(
                    'li',
                    null,
                    h('code', null, e.leadId),
                    e.status ? [' ', badge(e.status)] : null,
                    ' ',
                    h(
                      'a',
                      { href: enrollmentWorkflowUrl(ctx.config, c.id, e.leadId), target: '_blank', rel: 'noopener noreferrer' },
                      'Open in Temporal UI',
                    ),
                  ),
                ),
              )
            : h('p', null, 'No leads are enrolled yet.'),
        );
      } catch (err) {
        replace(body, err.status === 404 ? h('p', null, 'Enrollment listing is not available on this server yet.') : errorBox(err));
      }
    });
    return details;
  }

  replace(
    main,
    h('h1', null, 'Campaigns'),
    h('p', { class: 'lede' }, 'Pause, resume or complete campaigns; each enrollment links to its workflow in the Temporal UI.'),
    status,
    list,
  );
  void load();
}
