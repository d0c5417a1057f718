import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import type { AppDeps } from '../api/http/domain-context';
import { CampaignEnrollment, EngagementEvent, Message } from '../db/entities';
import { scoped, type TenantScope } from '../db/scoped-repository';
import { signTrackingToken } from '../domain/communications/tracking-token';
import { loadConfig, trustProxyWarning } from '../lib/config';
import { encodeId } from '../lib/ids';
import { campaignSequenceWorkflow } from '../workflows/campaign-sequence';
import { seedEnrollment } from './support/campaign-seed';
import { awaitEngagementOf } from './support/sequences';
import { startStack, type TestStack } from './support/stack';
import { waitUntil } from './support/wait-until';

/** The unauthenticated routes under abuse: per-IP limits, tracking replays, a tenant's flood. */
let stack: TestStack;
const tracking = { secret: 'public-surface-tracking-secret-0123', baseUrl: 'http://public.test' };
const LIMITS = { tracking: 8, pages: 4, forms: 3, login: 3, fileUrls: 3, providerCallbacks: 3 };
const twilio = { accountSid: `AC${'5'.repeat(32)}`, authToken: 'public-surface-twilio-token', publicBaseUrl: 'https://public.test' };

beforeAll(async () => {
  stack = await startStack({
    app: {
      trustProxy: 1,
      limits: { publicPerMinute: LIMITS },
      // Flushed by the tests only, so the buffer's bounds are what decides.
      trackingHits: { flushEveryMs: 3_600_000, capacity: 10, perTenantCapacity: 5 },
    },
    appDeps: { tracking, twilio },
  });
});
afterAll(() => stack.stop());

let lastOctet = 0;
/** Each test its own client address (the counters are shared by every test process). */
const newIp = () => `198.51.${process.pid % 250}.${++lastOctet}`;
const flush = () => (stack.app.locals.deps as AppDeps).trackingHits.flush();
const atMinuteSafe = async () => {
  if (Date.now() % 60_000 > 50_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
};

/** A sent email of a lead enrolled in a campaign that waits for a click (sent an hour ago: its opens are a person's, not a prefetch). */
async function sentEmail(scope?: TenantScope) {
  const seeded = await seedEnrollment(stack.db, awaitEngagementOf('link_clicked', 'Await a click'), scope);
  const message = await scoped(stack.db.manager, Message, seeded.scope).insert({
    channel: 'email',
    to: seeded.lead.email,
    subject: 'Hello',
    body: 'Hi',
    status: 'sent',
    leadId: seeded.lead.id,
    campaignId: seeded.campaign.id,
    idempotencyKey: `public-surface-${seeded.enrollment.id}`,
    sentAt: new Date(Date.now() - 3_600_000),
  });
  const claims = { t: encodeId('tenant', seeded.scope.tenantId), e: seeded.scope.environment, m: encodeId('message', message.id) };
  return {
    ...seeded,
    message,
    open: `/v1/t/o/${signTrackingToken(tracking.secret, { k: 'o', ...claims })}`,
    click: `/v1/t/c/${signTrackingToken(tracking.secret, { k: 'c', ...claims, u: 'https://example.com/offer' })}`,
  };
}

const eventsOf = (scope: TenantScope, messageId: string) =>
  scoped(stack.db.manager, EngagementEvent, scope).find({ where: { messageId }, order: { id: 'ASC' } });

describe('per-IP limits on the unauthenticated routes', () => {
  const cases: {
    route: string;
    limit: number;
    call: (ip: string) => Promise<{ status: number; headers: Record<string, string>; body: unknown }>;
  }[] = [
    { route: 'tracking pixel', limit: LIMITS.tracking, call: (ip) => stack.http().get('/v1/t/o/not-a-token').set('X-Forwarded-For', ip) },
    { route: 'click redirect', limit: LIMITS.tracking, call: (ip) => stack.http().get('/v1/t/c/not-a-token').set('X-Forwarded-For', ip) },
    { route: 'unsubscribe', limit: LIMITS.tracking, call: (ip) => stack.http().post('/v1/t/u/not-a-token').set('X-Forwarded-For', ip) },
    {
      route: 'public form',
      limit: LIMITS.forms,
      call: (ip) =>
        stack.http().post('/v1/public/forms/frm_missing/submissions').set('X-Forwarded-For', ip).send({ email: 'a@example.com' }),
    },
    { route: 'landing page', limit: LIMITS.pages, call: (ip) => stack.http().get('/p/ten_missing/launch').set('X-Forwarded-For', ip) },
    {
      route: 'login',
      limit: LIMITS.login,
      call: (ip) =>
        stack.http().post('/v1/auth/login').set('X-Forwarded-For', ip).send({ email: 'nobody@example.com', password: 'wrong-password' }),
    },
    {
      route: 'signed file URL',
      limit: LIMITS.fileUrls,
      call: (ip) => stack.http().get('/v1/files/direct/not-a-token').set('X-Forwarded-For', ip),
    },
    {
      route: 'Twilio status callback',
      limit: LIMITS.providerCallbacks,
      call: (ip) =>
        stack.http().post('/v1/providers/twilio/status').set('X-Forwarded-For', ip).type('form').send({ MessageStatus: 'sent' }),
    },
  ];

  it.each(cases)('answers the $route 429 with Retry-After and the envelope past its limit', async ({ limit, call }) => {
    await atMinuteSafe();
    const ip = newIp();
    for (let i = 0; i < limit; i++) expect((await call(ip)).status).not.toBe(429);
    const refused = await call(ip);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.body).toMatchObject({ success: false, status: 429 });
    expect((refused.body as { message: string }).message).toMatch(/Too many requests from this address; retry in \d+ seconds/);
    // Another address is not affected.
    expect((await call(newIp())).status).not.toBe(429);
  });

  it("never refuses Twilio's signed status callbacks for their rate: only unsigned or forged ones count, and get 429 past the limit", async () => {
    await atMinuteSafe();
    const ip = newIp();
    let n = 0;
    const statusCallback = (sign: (fields: Record<string, string>) => string) => {
      const fields = {
        MessageSid: `SM${String(process.pid).padStart(8, '0')}${String(++n).padStart(24, '0')}`,
        MessageStatus: 'delivered',
        AccountSid: twilio.accountSid,
      };
      return stack
        .http()
        .post('/v1/providers/twilio/status')
        .set('X-Forwarded-For', ip)
        .set('X-Twilio-Signature', sign(fields))
        .type('form')
        .send(fields);
    };
    const signed = () =>
      statusCallback((fields) =>
        getExpectedTwilioSignature(twilio.authToken, `${twilio.publicBaseUrl}/v1/providers/twilio/status`, fields),
      );
    const forged = () => statusCallback(() => 'forged-signature');
    // Twilio posts up to three statuses per SMS from a pool of addresses: far past the per-IP limit, none is refused.
    for (let i = 0; i < LIMITS.providerCallbacks * 3; i++) expect((await signed()).status).toBe(200);
    for (let i = 0; i < LIMITS.providerCallbacks; i++) expect((await forged()).status).toBe(403);
    expect((await forged()).status).toBe(429);
    expect((await signed()).status).toBe(200);
  });

  it('keeps each route class its own budget: a flood of pixel hits leaves the login budget alone', async () => {
    await atMinuteSafe();
    const ip = newIp();
    for (let i = 0; i <= LIMITS.tracking; i++) await stack.http().get('/v1/t/o/not-a-token').set('X-Forwarded-For', ip);
    expect((await stack.http().get('/v1/t/o/not-a-token').set('X-Forwarded-For', ip)).status).toBe(429);
    const login = await stack
      .http()
      .post('/v1/auth/login')
      .set('X-Forwarded-For', ip)
      .send({ email: 'x@example.com', password: 'wrong-password' });
    expect(login.status).toBe(401);
  });

  it('warns at startup when TRUST_PROXY is 0 in production, and only then', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).TRUST_PROXY).toBe(0);
    expect(trustProxyWarning({ NODE_ENV: 'production', TRUST_PROXY: 0 })).toMatch(/TRUST_PROXY is 0.*number of proxy hops/);
    expect(trustProxyWarning({ NODE_ENV: 'production', TRUST_PROXY: 1 })).toBeNull();
    expect(trustProxyWarning({ NODE_ENV: 'development', TRUST_PROXY: 0 })).toBeNull();
  });
});

describe('tracking hits under replay and flood', () => {
  it('records a replayed open or click from one address once and signals its enrollment once, and only what it waits for', async () => {
    await atMinuteSafe();
    const sent = await sentEmail();
    const handle = await stack.client.workflow.start(campaignSequenceWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: sent.enrollment.workflowId,
      args: [sent.input],
    });
    // Engagements are signalled to an enrollment once it waits on its condition.
    await waitUntil(
      async () => (await scoped(stack.db.manager, CampaignEnrollment, sent.scope).findById(sent.enrollment.id))?.engagementSignalsUntil,
      'the enrollment to wait on its condition',
    );
    const ip = newIp();
    const browser = { 'X-Forwarded-For': ip, 'User-Agent': 'Mozilla/5.0' };
    for (let i = 0; i < 4; i++) {
      await stack.http().get(sent.open).set(browser).expect(200);
      await flush(); // replays across flushes are caught by the shared store, not only within a batch
    }
    for (let i = 0; i < 3; i++) await stack.http().get(sent.click).set(browser).expect(302);
    await flush();
    // Another address opening the same email is another event.
    await stack
      .http()
      .get(sent.open)
      .set({ ...browser, 'X-Forwarded-For': newIp() })
      .expect(200);
    await flush();

    const events = await eventsOf(sent.scope, sent.message.id);
    expect(events.map((e) => e.type)).toEqual(['email_open', 'link_click', 'email_open']);
    // The click decides the enrollment's condition; the opens, which cannot, are not signalled.
    expect((await handle.result()).path).toEqual(['start', 'waiting:true', 'done']);
    const { events: history } = await handle.fetchHistory();
    expect(history?.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'engagement')).toHaveLength(1);
  });

  it("bounds the buffer per tenant: one tenant's flood does not drop another tenant's hits", async () => {
    await atMinuteSafe();
    await flush();
    const flooder = await sentEmail();
    const quiet = await sentEmail();
    // Distinct addresses, so none of these is a replay: only the buffer's bounds decide (12 would fill
    // the whole buffer of 10; the flooder keeps its share of 5).
    for (let i = 0; i < 12; i++) {
      await stack.http().get(flooder.open).set({ 'X-Forwarded-For': newIp(), 'User-Agent': 'Mozilla/5.0' }).expect(200);
    }
    for (let i = 0; i < 3; i++) {
      await stack.http().get(quiet.open).set({ 'X-Forwarded-For': newIp(), 'User-Agent': 'Mozilla/5.0' }).expect(200);
    }
    await flush();
    expect(await eventsOf(flooder.scope, flooder.message.id)).toHaveLength(5);
    expect(await eventsOf(quiet.scope, quiet.message.id)).toHaveLength(3);
  });
});

// More of the same with unknown tokens, and the metrics' route label: odd-input.test.ts.
describe('tracking URLs, dispatched without a router, matched as an Express route would', () => {
  const get = (path: string) => stack.http().get(path).set({ 'X-Forwarded-For': newIp(), 'User-Agent': 'Mozilla/5.0' });

  it('answers the token as one path segment: a trailing slash or percent-encoding is the same URL, HEAD is GET without a body', async () => {
    const sent = await sentEmail();
    const [prefix, token] = [sent.open.slice(0, sent.open.lastIndexOf('/') + 1), sent.open.slice(sent.open.lastIndexOf('/') + 1)];
    await get(`${sent.open}/`).expect(200).expect('Content-Type', 'image/gif');
    await get(`${prefix}${token.replace('.', '%2E')}`)
      .expect(200)
      .expect('Content-Type', 'image/gif');
    const head = await stack.http().head(sent.open).set({ 'X-Forwarded-For': newIp() });
    expect([head.status, head.headers['content-type'], head.text ?? '']).toEqual([200, 'image/gif', '']);
    await get(`${sent.click}/`).expect(302).expect('Location', 'https://example.com/offer');
  });

  it('answers an open with the 42-byte transparent GIF, byte for byte', async () => {
    const sent = await sentEmail();
    const pixel = await get(sent.open)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect([pixel.status, pixel.headers['content-length'], pixel.headers['cache-control']]).toEqual([200, '42', 'no-store, max-age=0']);
    expect((pixel.body as Buffer).toString('base64')).toBe('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7');
  });

  it('is a 404 for a token of another kind or an extra segment, and a 405 for a method the URL does not take', async () => {
    const sent = await sentEmail();
    await get(sent.open.replace('/t/o/', '/t/c/')).expect(404);
    await get(`${sent.open}/more`).expect(404);
    await get('/v1/t/x/token').expect(404);
    const post = await stack.http().post(sent.open).set({ 'X-Forwarded-For': newIp() });
    expect([post.status, post.headers.allow, post.body.success]).toEqual([405, 'GET, HEAD', false]);
    // Unsubscribe takes POST (one-click List-Unsubscribe): a foreign token is a 404, not a 405.
    await stack.http().post('/v1/t/u/not-a-token').set({ 'X-Forwarded-For': newIp() }).expect(404);
  });
});
