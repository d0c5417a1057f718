import { api, can, session, setUnauthorizedHandler } from './api.js';
import { errorBox, field, h, replace } from './dom.js';
import { campaignsPage } from './pages/campaigns.js';
import { importsPage } from './pages/imports.js';
import { keysPage } from './pages/keys.js';
import { usagePage } from './pages/usage.js';
import { webhookDetailPage, webhooksPage } from './pages/webhooks.js';

const root = document.getElementById('app');
const config = { temporalUiUrl: 'http://127.0.0.1:8233', temporalNamespace: 'default' };
let notice = null;

const ROUTES = [
  { path: 'keys', label: 'API keys', page: keysPage },
  { path: 'webhooks', label: 'Webhooks', page: webhooksPage },
  { path: 'campaigns', label: 'Campaigns', page: campaignsPage },
  { path: 'imports', label: 'Lead imports', page: importsPage },
  { path: 'usage', label: 'Usage and audit log', page: usagePage },
];

function currentRoute() {
  const [path = 'keys', id] = location.hash.replace(/^#\/?/, '').split('/');
  if (path === 'webhooks' && id) return { nav: 'webhooks', title: 'Webhook endpoint', render: (el, ctx) => webhookDetailPage(el, ctx, id) };
  const route = ROUTES.find((r) => r.path === path) ?? ROUTES[0];
  return { nav: route.path, title: route.label, render: route.page };
}

setUnauthorizedHandler(() => {
  session.clear();
  notice = 'Your session has ended. Sign in again to continue.';
  render();
});

function render() {
  if (!session.get()) return renderLogin();
  renderShell();
}

function renderLogin() {
  document.title = 'Sign in · Dashboard';
  const email = field('Email', { type: 'email', name: 'email', autocomplete: 'username', required: true });
  const password = field('Password', { type: 'password', name: 'password', autocomplete: 'current-password', required: true });
  const tenant = field(
    'Tenant ID (optional)',
    { type: 'text', name: 'tenantId', autocomplete: 'off' },
    'Only needed when your email belongs to several tenants.',
  );
  const status = h('div', { 'aria-live': 'polite' }, notice ? h('p', { class: 'notice' }, notice) : null);
  notice = null;
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h(
    'form',
    { class: 'card login', 'aria-labelledby': 'login-title', novalidate: false },
    h('h1', { id: 'login-title' }, 'Sign in to the dashboard'),
    status,
    email.field,
    password.field,
    h('details', null, h('summary', null, 'Member of several tenants?'), tenant.field),
    submit,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    submit.disabled = true;
    replace(status);
    try {
      const body = { email: email.input.value.trim(), password: password.input.value };
      if (tenant.input.value.trim()) body.tenantId = tenant.input.value.trim();
      const { data } = await api('POST', '/v1/auth/login', body);
      session.set({
        token: data.accessToken,
        tenantId: data.tenantId,
        email: data.user?.email ?? body.email,
        scopes: data.scopes,
        expiresAt: Date.now() + data.expiresIn * 1000,
      });
      if (!location.hash) location.hash = '#/keys';
      render();
    } catch (err) {
      replace(status, errorBox(err));
      password.input.value = '';
      password.input.focus();
    } finally {
      submit.disabled = false;
    }
  });
  replace(root, h('main', { id: 'main', class: 'login-page' }, form));
  email.input.focus();
}

function envSwitch(env) {
  const sandbox = env === 'sandbox';
  return h(
    'button',
    {
      type: 'button',
      role: 'switch',
      class: 'env-switch',
      'aria-checked': String(sandbox),
      onclick: () => {
        session.setEnvironment(sandbox ? 'live' : 'sandbox');
        render();
      },
    },
    h('span', { class: 'track', 'aria-hidden': 'true' }, h('span', { class: 'thumb' })),
    'Sandbox mode',
  );
}

function renderShell() {
  const s = session.get();
  const env = session.environment();
  const route = currentRoute();
  document.title = `${route.title} · ${env === 'sandbox' ? 'Sandbox' : 'Live'} · Dashboard`;
  document.body.dataset.environment = env;
  const main = h('main', { id: 'main', tabindex: '-1' });
  const header = h(
    'header',
    { class: 'topbar' },
    h('div', { class: 'brand' }, 'Lead engagement', h('span', { class: `env-badge env-${env}` }, env === 'sandbox' ? 'Sandbox' : 'Live')),
    h(
      'div',
      { class: 'account' },
      envSwitch(env),
      h('span', { class: 'who' }, s.email),
      h(
        'button',
        {
          type: 'button',
          onclick: () => {
            session.clear();
            notice = 'You are signed out.';
            render();
          },
        },
        'Sign out',
      ),
    ),
  );
  const nav = h(
    'nav',
    { class: 'tabs', 'aria-label': 'Sections' },
    h(
      'ul',
      null,
      ROUTES.map((r) => h('li', null, h('a', { href: `#/${r.path}`, 'aria-current': r.path === route.nav ? 'page' : undefined }, r.label))),
    ),
  );
  const banner =
    env === 'sandbox'
      ? h(
          'div',
          { class: 'sandbox-banner', role: 'status', 'data-testid': 'sandbox-banner' },
          h('strong', null, 'Sandbox'),
          ': you are viewing and changing test data. Live data and live keys are not affected.',
        )
      : null;
  replace(root, banner, header, nav, main);
  route.render(main, { api, can, env, config, navigate: (hash) => (location.hash = hash) });
}

window.addEventListener('hashchange', () => {
  render();
  document.getElementById('main')?.focus();
});

async function boot() {
  try {
    const res = await fetch('/dashboard/config.json', { cache: 'no-store' });
    if (res.ok) Object.assign(config, await res.json());
  } catch {
    // the defaults serve a local dev server
  }
  render();
}

void boot();
