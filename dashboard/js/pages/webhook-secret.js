import { busy, confirmDialog, errorBox, h, replace, secretField, when } from '../dom.js';

/** Reveal (GET .../secret) and rotate (POST .../rotate-secret) the endpoint's signing secret. */
export function secretSection(ctx, webhook) {
  const { api } = ctx;
  const base = `/v1/integrations/webhooks/${encodeURIComponent(webhook.id)}`;
  const slot = h('div', { 'aria-live': 'polite' });
  const show = (data, note) => {
    const secret = secretField('Signing secret', data.secret);
    replace(
      slot,
      note ? h('p', { class: 'notice' }, note) : null,
      secret.field,
      data.previousSecretExpiresAt
        ? h('p', { class: 'hint' }, 'The previous secret also signs deliveries until ', when(data.previousSecretExpiresAt), '.')
        : null,
      h('button', { type: 'button', onclick: () => replace(slot) }, 'Hide secret'),
    );
  };
  const reveal = h('button', { type: 'button' }, 'Reveal secret');
  reveal.addEventListener('click', () =>
    busy(reveal, async () => {
      try {
        show((await api('GET', `${base}/secret`)).data);
      } catch (err) {
        replace(slot, errorBox(err));
      }
    }),
  );
  const rotate = h('button', { type: 'button', class: 'danger' }, 'Rotate secret');
  rotate.addEventListener('click', async () => {
    const ok = await confirmDialog({
      title: 'Rotate the signing secret?',
      body: 'A new secret signs every delivery from now on. The current one keeps signing alongside it for 24 hours, so you can update your receiver without dropping events.',
      confirmLabel: 'Rotate secret',
      danger: true,
    });
    if (!ok) return rotate.focus();
    await busy(rotate, async () => {
      try {
        show((await api('POST', `${base}/rotate-secret`)).data, 'Secret rotated. Update your receiver with the new secret.');
      } catch (err) {
        replace(slot, errorBox(err));
      }
    });
  });
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'secret-title' },
    h('h2', { id: 'secret-title' }, 'Signing secret'),
    h('p', null, 'Receivers verify X-Service-Signature (or the Standard Webhooks headers) with this secret before trusting a payload.'),
    h('div', { class: 'actions' }, reveal, rotate),
    slot,
  );
}
