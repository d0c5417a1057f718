import type { AppDeps } from '../api/http/domain-context';
import type { campaignSequenceWorkflow } from '../workflows/campaign-sequence';
import { threeEmails } from './support/sequences';
import { SmtpSink, trackingPaths } from './support/smtp-sink';
import { startMailStack } from './support/mail-stack';
import { validLead, type TestStack, type TestTenant } from './support/stack';

/** Campaign stats per recipient beside per message, from mail received at a real SMTP server and real tracking hits. */
let stack: TestStack;
let tenant: TestTenant;
let smtp: SmtpSink;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ stack, tenant, smtp, stop } = await startMailStack({ name: 'recipient-stats' }));
});
afterAll(() => stop());

const api = () => stack.http();
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

it('counts unique recipients for opened, clicked and unsubscribed rates beside message counts', async () => {
  await api().patch('/v1/analytics/settings').set(tenant.live).send({ prefetchWindowSeconds: 0 }).expect(200);
  const workflow = await api()
    .post('/v1/workflows')
    .set(tenant.live)
    .send(threeEmails({ duration: 0.01, durationUnit: 'minutes' }))
    .expect(201);
  const campaign = (
    await api()
      .post('/v1/campaigns')
      .set(tenant.live)
      .send({ name: 'Stats', workflowId: workflow.body.data.id, status: 'active' })
      .expect(201)
  ).body.data.id;
  const reader = (await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data;
  const leaver = (await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data;
  await api()
    .post(`/v1/campaigns/${campaign}/enrollments`)
    .set(tenant.live)
    .send({ leadIds: [reader.id, leaver.id] })
    .expect(200);
  for (const lead of [reader, leaver]) {
    await stack.client.workflow.getHandle<typeof campaignSequenceWorkflow>(`campaign/${campaign}/lead/${lead.id}`).result();
  }

  // The reader opens all three emails (twice each) and clicks in one; the leaver opens nothing and unsubscribes.
  const readerMail = smtp.to(reader.email);
  expect(readerMail).toHaveLength(3);
  for (const mail of readerMail) {
    for (let i = 0; i < 2; i++) await api().get(trackingPaths(mail, 'o')[0]).set('User-Agent', BROWSER).expect(200);
  }
  await api().get(trackingPaths(readerMail[0], 'c')[0]).set('User-Agent', BROWSER).expect(302);
  await api()
    .post(trackingPaths(smtp.to(leaver.email)[2], 'u')[0])
    .type('form')
    .send('List-Unsubscribe=One-Click')
    .expect(200);
  await (stack.app.locals.deps as AppDeps).trackingHits.flush();

  const stats = (await api().get(`/v1/campaigns/${campaign}/stats`).set(tenant.live).expect(200)).body.data;
  expect(stats).toMatchObject({ sent: 6, opened: 3, clicked: 1, unsubscribed: 1 });
  expect(stats.rates).toMatchObject({ open: 0.5 });
  expect(stats.recipients).toEqual({
    sent: 2,
    opened: 1,
    clicked: 1,
    bounced: 0,
    unsubscribed: 1,
    rates: { open: 0.5, click: 0.5, bounce: 0, unsubscribe: 0.5 },
  });
});
