import { composeEmail, type TrackingSettings } from '../domain/communications/compose-email';
import { inferEmailFormat } from '../domain/communications/email-format';
import { clickTargets, header, htmlPart, SmtpSink, textPart, type ReceivedMail } from './support/smtp-sink';
import { startMailStack } from './support/mail-stack';
import { validLead, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';

/** Lead data in emails, read at a real SMTP server: it is shown as text, never as markup or a tracked link. */
let stack: TestStack;
let tenant: TestTenant;
let smtp: SmtpSink;
let tracking: TrackingSettings;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ stack, tenant, smtp, tracking, stop } = await startMailStack({ name: 'content', emailFrom: 'Sales <sales@example.test>' }));
});
afterAll(() => stop());

const api = () => stack.http();
const EVIL_NAME = '<a href="https://evil.example">x</a>';
const EVIL_SITE = 'https://evil.example/login';
const TEXT_BODY = 'Hello {{firstName}}, your site {{customFields.website}} is ready: https://shop.example/offer';
const HTML_BODY =
  '<p>Hello {{firstName}}, your site {{customFields.website}} is ready.</p><p><a href="https://shop.example/offer">Offer</a></p>';

const evilLead = async () =>
  (
    await api()
      .post('/v1/leads')
      .set(tenant.live)
      .send(validLead({ firstName: EVIL_NAME, customFields: { website: EVIL_SITE } }))
      .expect(201)
  ).body.data as { id: string; email: string };

/** The HTML part holds the lead's data as escaped text, no anchor for it, and only the author's link is tracked. */
function expectLeadDataShownAsText(mail: ReceivedMail) {
  const html = htmlPart(mail);
  expect(html).not.toMatch(/<a\s[^>]*evil\.example/i);
  expect(html).toContain('&lt;a href=&quot;https://evil.example&quot;&gt;x&lt;/a&gt;');
  expect(html).toContain(EVIL_SITE);
  expect(clickTargets(mail)).toEqual(['https://shop.example/offer']);
}

describe('email content', () => {
  it("shows a lead's markup and URLs as text in a plain-text one-off email, and tracks only the author's link", async () => {
    const lead = await evilLead();
    const sent = await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: lead.email, subject: 'Hi {{firstName}}', body: TEXT_BODY, leadId: lead.id })
      .expect(200);
    const [mail] = await waitUntil(async () => smtp.to(lead.email).length > 0 && smtp.to(lead.email), 'the email');
    expectLeadDataShownAsText(mail);
    const stored = await api().get(`/v1/communications/messages/${sent.body.data.id}`).set(tenant.live).expect(200);
    expect(stored.body.data).toMatchObject({ format: 'text', subject: `Hi ${EVIL_NAME}` });
  });

  it("escapes a lead's data in an HTML template (format inferred once, when saved) and tracks only the author's link", async () => {
    const template = await api()
      .post('/v1/communications/templates')
      .set(tenant.live)
      .send({ name: 'Offer', subject: 'Offer for {{firstName}}', body: HTML_BODY })
      .expect(201);
    expect(template.body.data.format).toBe('html');
    const lead = await evilLead();
    await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: lead.email, subject: 'Offer for {{firstName}}', templateId: template.body.data.id, leadId: lead.id })
      .expect(200);
    const [mail] = await waitUntil(async () => smtp.to(lead.email).length > 0 && smtp.to(lead.email), 'the email');
    expectLeadDataShownAsText(mail);
  });

  it('keeps the format the author gave: a text template with tags is sent escaped, and an edit of its body keeps the format', async () => {
    const template = await api()
      .post('/v1/communications/templates')
      .set(tenant.live)
      .send({ name: 'Code sample', subject: 'Markup', body: 'Write <b>bold</b> like this.', format: 'text' })
      .expect(201);
    const edited = await api()
      .patch(`/v1/communications/templates/${template.body.data.id}`)
      .set(tenant.live)
      .send({ body: 'Write <i>italic</i> like this.' })
      .expect(200);
    expect(edited.body.data.format).toBe('text');
    const to = `format-${Date.now()}@example.com`;
    await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to, subject: 'Markup', templateId: template.body.data.id })
      .expect(200);
    const [mail] = await waitUntil(async () => smtp.to(to).length > 0 && smtp.to(to), 'the email');
    expect(htmlPart(mail)).toContain('Write &lt;i&gt;italic&lt;/i&gt; like this.');

    const both = await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to, subject: 'x', templateId: template.body.data.id, format: 'html' });
    expect([both.status, both.body.errors[0].field]).toEqual([422, 'format']);
  });

  it("shows a lead's markup and URLs as text in campaign emails, plain-text and HTML nodes alike", async () => {
    const pos = { x: 0, y: 0 };
    const workflow = await api()
      .post('/v1/workflows')
      .set(tenant.live)
      .send({
        name: 'Content safety',
        nodes: [
          { nodeId: 'start', type: 'trigger', position: pos, data: { triggerType: 'manual' } },
          { nodeId: 'text', type: 'email', position: pos, data: { subjectLine: 'Text for {{firstName}}', body: TEXT_BODY } },
          { nodeId: 'html', type: 'email', position: pos, data: { subjectLine: 'HTML for {{firstName}}', body: HTML_BODY } },
          { nodeId: 'done', type: 'end', position: pos, data: {} },
        ],
        edges: [
          { edgeId: 'e1', source: 'start', target: 'text' },
          { edgeId: 'e2', source: 'text', target: 'html' },
          { edgeId: 'e3', source: 'html', target: 'done' },
        ],
      })
      .expect(201);
    const formats = workflow.body.data.nodes
      .filter((n: { type: string }) => n.type === 'email')
      .map((n: { data: { format: string } }) => n.data.format);
    expect(formats).toEqual(['text', 'html']);
    const campaign = await api()
      .post('/v1/campaigns')
      .set(tenant.live)
      .send({ name: 'Content safety', workflowId: workflow.body.data.id, status: 'active' })
      .expect(201);
    const lead = await evilLead();
    await api()
      .post(`/v1/campaigns/${campaign.body.data.id}/enrollments`)
      .set(tenant.live)
      .send({ leadIds: [lead.id] })
      .expect(200);
    const mails = await waitUntil(async () => smtp.to(lead.email).length === 2 && smtp.to(lead.email), 'both campaign emails');
    for (const mail of mails) expectLeadDataShownAsText(mail);
    const stored = await api().get(`/v1/communications/messages?leadId=${lead.id}`).set(tenant.live).expect(200);
    expect(stored.body.data.map((m: { subject: string; format: string }) => [m.subject, m.format])).toEqual([
      [`HTML for ${EVIL_NAME}`, 'html'],
      [`Text for ${EVIL_NAME}`, 'text'],
    ]);
  });

  it('puts the pixel and the unsubscribe link inside a whole document, and gives marketing mail without a lead its unsubscribe', async () => {
    const lead = (await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data as { email: string; id: string };
    const page = '<!doctype html><html><head><title>x</title></head><body><p>Hi {{firstName}}</p></BODY></html>';
    await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: lead.email, subject: 'Doc', body: page, leadId: lead.id });
    const [mail] = await waitUntil(async () => smtp.to(lead.email).length > 0 && smtp.to(lead.email), 'the email');
    const html = htmlPart(mail);
    expect(html.indexOf('/v1/t/o/')).toBeLessThan(html.indexOf('</BODY>'));
    expect(html.indexOf('/v1/t/u/')).toBeLessThan(html.indexOf('</BODY>'));
    expect(html.trimEnd().endsWith('</html>')).toBe(true);

    const address = `no-lead-${Date.now()}@example.com`;
    await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: address, subject: 'News', body: 'Hello', category: 'marketing' })
      .expect(200);
    const [marketing] = await waitUntil(async () => smtp.to(address).length > 0 && smtp.to(address), 'the marketing email');
    expect(header(marketing, 'List-Unsubscribe')).toMatch(/^<https:\/\/content\.test\/v1\/t\/u\//);
    expect(textPart(marketing)).toContain('Unsubscribe: https://content.test/v1/t/u/');
  });

  it('sends an HTML email with a text part of separated paragraphs, list items and the link URLs', async () => {
    const lead = (await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data as { email: string; id: string };
    const body =
      '<h2>Welcome {{firstName}}</h2><p>Thanks for signing up.</p><ul><li>Import your leads</li><li>Start a campaign</li></ul>' +
      '<p>See our <a href="https://example.com/pricing">pricing</a> or <a href="https://example.com/docs">https://example.com/docs</a>.</p>';
    await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: lead.email, subject: 'Welcome', body, leadId: lead.id, category: 'transactional' })
      .expect(200);
    const [mail] = await waitUntil(async () => smtp.to(lead.email).length > 0 && smtp.to(lead.email), 'the email');
    const text = textPart(mail);
    // The former tag stripping sent "Welcome AdaThanks for signing up. See our pricing.": blocks run together, URLs gone.
    expect(text).toContain('WELCOME ADA\n\nThanks for signing up.\n\n');
    expect(text).toContain(' * Import your leads\n * Start a campaign');
    expect(text).toContain('See our pricing [https://example.com/pricing] or https://example.com/docs.');
    // The author's URLs, readable; the HTML part carries the tracked redirects.
    expect(text).not.toContain('/v1/t/');
    expect(clickTargets(mail)).toEqual(['https://example.com/pricing', 'https://example.com/docs']);
  });

  it('reads 100 KB bodies of unclosed tags in linear time, and sends one', async () => {
    const adversarial = ['<a'.repeat(50_000), '<'.repeat(100_000), `<a${' '.repeat(100_000)}`];
    // The bound ("well under a second"); the former regexes took seconds on each of these.
    const started = Date.now();
    for (const body of adversarial) {
      const format = inferEmailFormat(body);
      expect(format).toBe('text');
      for (const as of ['text', 'html'] as const) {
        composeEmail(
          {
            subject: 's',
            body,
            format: as,
            trackedLinks: [],
            tenantId: 't',
            environment: 'live',
            messageId: 'm',
            track: true,
            unsubscribe: true,
          },
          tracking,
        );
      }
    }
    expect(Date.now() - started).toBeLessThan(1_000);

    const to = `redos-${Date.now()}@example.com`;
    await api().post('/v1/communications/send/email').set(tenant.live).send({ to, subject: 'Long', body: adversarial[0] }).expect(200);
    const [mail] = await waitUntil(async () => smtp.to(to).length > 0 && smtp.to(to), 'the long email');
    expect(htmlPart(mail)).toContain('&lt;a&lt;a&lt;a');
  });
});
