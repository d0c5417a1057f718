import type { AppDeps } from '../api/http/domain-context';
import { SmtpSink, trackingPaths } from './support/smtp-sink';
import { startMailStack } from './support/mail-stack';
import { validLead, type TestStack, type TestTenant } from './support/stack';

/**
 * Every engagement hit is visible, at a real SMTP server and the real tracking routes: machine hits
 * are recorded with their reason (not dropped), listed by GET /v1/analytics/events, kept out of a
 * message's counts, and classed by rules the tenant sets.
 */
let stack: TestStack;
let tenant: TestTenant;
let smtp: SmtpSink;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ stack, tenant, smtp, stop } = await startMailStack({
    name: 'visibility',
    // Each kind of client below comes from its own address: the same token from one address within
    // a minute is recorded once (replay protection), which would fold the scanner into the prefetch.
    app: { trustProxy: 1 },
  }));
});
afterAll(() => stop());

const api = () => stack.http();
const flush = () => (stack.app.locals.deps as AppDeps).trackingHits.flush();
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

async function sentEmail() {
  const lead = (await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data;
  const sent = await api()
    .post('/v1/communications/send/email')
    .set(tenant.live)
    .send({ to: lead.email, subject: 'Pricing', body: 'See https://example.com/pricing', leadId: lead.id, category: 'transactional' })
    .expect(200);
  return { lead, messageId: sent.body.data.id as string, mail: smtp.to(lead.email)[0] };
}

describe('engagement visibility', () => {
  it('records machine hits with their reason, lists them, and counts only people on the message', async () => {
    // A wide prefetch window, so the first open is a prefetch however slow this machine is.
    await api().patch('/v1/analytics/settings').set(tenant.live).send({ prefetchWindowSeconds: 600 }).expect(200);
    const { lead, messageId, mail } = await sentEmail();
    const [open] = trackingPaths(mail, 'o');
    const [click] = trackingPaths(mail, 'c');
    await api().get(open).set('User-Agent', BROWSER).expect(200);
    await flush();
    const settings = await api().patch('/v1/analytics/settings').set(tenant.live).send({ prefetchWindowSeconds: 0 }).expect(200);
    expect(settings.body.data).toEqual({ prefetchWindowSeconds: 0, countAppleMailPrivacyOpens: true });
    await api().get(open).set('User-Agent', 'curl/8.5.0').set('X-Forwarded-For', '203.0.113.9').expect(200);
    await api().head(click).set('User-Agent', BROWSER).expect(302);
    await api().get(open).set('User-Agent', BROWSER).expect(200);
    await api().get(click).set('User-Agent', BROWSER).expect(302);
    await flush();

    const all = (await api().get('/v1/analytics/events').query({ messageId, limit: 100 }).set(tenant.live).expect(200)).body;
    expect(all.pagination.total).toBe(5);
    const machine = (await api().get('/v1/analytics/events').query({ messageId, machine: 'true' }).set(tenant.live).expect(200)).body.data;
    expect(machine.map((e: { type: string; machineReason: string }) => [e.type, e.machineReason]).sort()).toEqual([
      ['email_open', 'prefetch within 600 s of sending'],
      ['email_open', 'user agent of a known scanner or client library ("curl/")'],
      ['link_click', 'HEAD request (link checkers, not people, send those)'],
    ]);
    const people = (await api().get('/v1/analytics/events').query({ leadId: lead.id, machine: 'false' }).set(tenant.live).expect(200)).body
      .data;
    expect(people.map((e: { type: string }) => e.type).sort()).toEqual(['email_open', 'link_click']);
    expect(people.every((e: { machine: boolean; machineReason: null; userAgent: string }) => !e.machine && e.userAgent === BROWSER)).toBe(
      true,
    );
    const clicks = (await api().get('/v1/analytics/events').query({ messageId, type: 'link_click' }).set(tenant.live).expect(200)).body
      .data;
    expect(clicks).toHaveLength(2);

    const message = (await api().get(`/v1/communications/messages/${messageId}`).set(tenant.live).expect(200)).body.data;
    expect(message).toMatchObject({
      openCount: 1,
      clickCount: 1,
      openedAt: people.find((e: { type: string }) => e.type === 'email_open').timestamp,
    });
    expect(message.clickedAt).toEqual(expect.any(String));
    const listed = (await api().get('/v1/communications/messages').query({ leadId: lead.id }).set(tenant.live).expect(200)).body.data;
    expect(listed[0]).toMatchObject({ id: messageId, openCount: 1, clickCount: 1 });
  });

  it('classes Apple Mail Privacy Protection opens as machine traffic only when the tenant says so', async () => {
    await api()
      .patch('/v1/analytics/settings')
      .set(tenant.live)
      .send({ prefetchWindowSeconds: 0, countAppleMailPrivacyOpens: true })
      .expect(200);
    const { messageId, mail } = await sentEmail();
    const [open] = trackingPaths(mail, 'o');
    await api().get(open).set('User-Agent', 'Mozilla/5.0').expect(200);
    await flush();
    await api().patch('/v1/analytics/settings').set(tenant.live).send({ countAppleMailPrivacyOpens: false }).expect(200);
    expect((await api().get('/v1/analytics/settings').set(tenant.live).expect(200)).body.data).toEqual({
      countAppleMailPrivacyOpens: false,
      prefetchWindowSeconds: 0,
    });
    await api().get(open).set('User-Agent', 'Mozilla/5.0').expect(200);
    await flush();

    const events = (await api().get('/v1/analytics/events').query({ messageId }).set(tenant.live).expect(200)).body.data;
    expect(events.map((e: { machine: boolean; machineReason: string | null }) => [e.machine, e.machineReason])).toEqual([
      [true, 'Apple Mail Privacy Protection proxy (this tenant does not count its opens)'],
      [false, null],
    ]);
    expect((await api().get(`/v1/communications/messages/${messageId}`).set(tenant.live).expect(200)).body.data.openCount).toBe(1);
  });

  it('rejects settings out of range with a 422 naming the field', async () => {
    const res = await api().patch('/v1/analytics/settings').set(tenant.live).send({ prefetchWindowSeconds: -1 });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].field).toBe('prefetchWindowSeconds');
  });
});
