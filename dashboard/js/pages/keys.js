import { query } from '../api.js';
import {
  badge,
  busy,
  confirmDialog,
  emptyState,
  errorBox,
  field,
  h,
  pager,
  readOnlyNote,
  replace,
  secretField,
  table,
  when,
} from '../dom.js';

const envName = (env) => (env === 'sandbox' ? 'sandbox' : 'live');

export function keysPage(main, { api, can, env }) {
  const writable = can('api_keys:write');
  const created = h('div', { 'aria-live': 'polite' });
  const listStatus = h('div', { 'aria-live': 'polite' });
  const listError = h('div', { 'aria-live': 'polite' });
  const list = h('div');
  let page = 1;

  async function load() {
    try {
      const res = await api('GET', `/v1/api-keys${query({ page, limit: 20 })}`);
      replace(listError);
      if (!res.data.length) {
        return replace(
          list,
          emptyState(
            `No ${envName(env)} API keys yet.`,
            writable ? 'Create one above, then send it as X-API-Key from your integration.' : 'An admin can create one.',
          ),
        );
      }
      replace(
        list,
        table(
          `API keys (${envName(env)})`,
          [
            { label: 'Name', cell: (k) => k.name },
            { label: 'Prefix', cell: (k) => h('code', null, `${k.keyPrefix}…`) },
            { label: 'Environment', cell: (k) => k.environment },
            { label: 'Scopes', cell: (k) => k.scopes.join(', ') },
            { label: 'Created', cell: (k) => when(k.createdAt) },
            { label: 'Last used', cell: (k) => (k.lastUsedAt ? when(k.lastUsedAt) : 'Never') },
            { label: 'Status', cell: (k) => badge(k.status) },
            ...(writable ? [{ label: 'Actions', cell: (k) => (k.status === 'active' ? revokeButton(k) : '—') }] : []),
          ],
          res.data,
        ),
        pager(res.pagination, (p) => {
          page = p;
          void load();
        }),
      );
    } catch (err) {
      replace(listError, errorBox(err));
    }
  }

  function revokeButton(key) {
    const button = h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke ${key.name}` }, 'Revoke');
    button.addEventListener('click', async () => {
      const ok = await confirmDialog({
        title: `Revoke “${key.name}”?`,
        body: `Requests with ${key.keyPrefix}… will fail with 401 from now on. This cannot be undone.`,
        confirmLabel: 'Revoke key',
        danger: true,
      });
      if (!ok) return button.focus();
      await busy(button, async () => {
        try {
          await api('DELETE', `/v1/api-keys/${encodeURIComponent(key.id)}`);
          replace(listStatus, h('p', { class: 'notice' }, `Revoked “${key.name}”.`));
          await load();
        } catch (err) {
          replace(listStatus, errorBox(err));
        }
      });
    });
    return button;
  }

  const name = field('Name', { type: 'text', name: 'name', required: true, maxlength: '100', placeholder: 'e.g. CRM sync' });
  const scopes = field(
    'Scopes',
    { type: 'text', name: 'scopes', value: '*', required: true },
    'Comma-separated: * for everything, or for example leads:read, leads:write.',
  );
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create key');
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'create-key-title' },
    h('h2', { id: 'create-key-title' }, `Create a ${envName(env)} key`),
    name.field,
    scopes.field,
    submit,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void busy(submit, async () => {
      const body = {
        name: name.input.value.trim(),
        scopes: scopes.input.value
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      };
      try {
        const { data } = await api('POST', '/v1/api-keys', body);
        form.reset();
        scopes.input.value = '*'; // reset() empties it: the value was set as a property, not as the default
        showCreated(data);
        await load();
      } catch (err) {
        replace(created, errorBox(err));
      }
    });
  });

  function showCreated(key) {
    const secret = secretField(`Your new key “${key.name}”`, key.fullKey);
    const panel = h(
      'section',
      { class: 'card reveal', 'aria-labelledby': 'new-key-title' },
      h('h2', { id: 'new-key-title' }, 'Copy your new API key now'),
      h('p', null, h('strong', null, 'You will not see it again.'), ' Store it in your secret manager; only its prefix is kept here.'),
      secret.field,
      h('button', { type: 'button', onclick: () => replace(created) }, 'I have stored it'),
    );
    replace(created, panel);
    secret.input.focus();
    secret.input.select();
  }

  replace(
    main,
    h('h1', null, 'API keys'),
    h(
      'p',
      { class: 'lede' },
      `Keys for the ${envName(env)} environment. Give each integration its own key and revoke a key as soon as it may have leaked.`,
    ),
    writable ? form : readOnlyNote('API keys'),
    created,
    h('h2', null, 'Keys'),
    listStatus,
    listError,
    list,
  );
  void load();
}
