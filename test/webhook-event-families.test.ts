import { outboxOf } from './support/events';
import { sentEmail } from './support/messages';
import { newTenant, startStack, validLead, type TestStack } from './support/stack';
import { registerEndpoint } from './support/webhook-api';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * An endpoint subscribed to a family (`lead.*`) receives each event whose name begins with it, on
 * every path that writes events: a single write (emitEvent), a lead's write (its own statement) and
 * an engagement event's (one statement for events of several types).
 */
let stack: TestStack;
let receiver: WebhookReceiver;
beforeAll(async () => {
  stack = await startStack({ allowPrivateWebhookTargets: true });
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await receiver.stop();
  await stack.stop();
});

const api = () => stack.http();

describe('webhook subscriptions to a family of events', () => {
  it('delivers every event of the family and none of another, and stores no event nobody subscribes to', async () => {
    const t = await newTenant(stack.db);
    await registerEndpoint(stack.app, t, receiver, '/families/leads', ['lead.*']);
    await registerEndpoint(stack.app, t, receiver, '/families/email', ['email.*', 'task.created']);

    const lead = (await api().post('/v1/leads').set(t.live).send(validLead()).expect(201)).body.data as { id: string; email: string };
    await api().patch(`/v1/leads/${lead.id}`).set(t.live).send({ score: 40 }).expect(200);
    await api().post('/v1/opportunities').set(t.live).send({ name: 'Deal', value: 100, leadId: lead.id }).expect(201);
    const messageId = await sentEmail(stack.db, t, lead);
    await api().post('/v1/analytics/events').set(t.live).send({ eventType: 'email_open', leadId: lead.id, messageId }).expect(201);

    const leads = await receiver.waitFor('/families/leads', 2);
    expect(leads.map((r) => r.body.type).sort()).toEqual(['lead.created', 'lead.updated']);
    const email = await receiver.waitFor('/families/email', 1);
    expect(email.map((r) => [r.body.type, r.body.data.messageId])).toEqual([['email.opened', messageId]]);
    // opportunity.created has no subscriber: it was never written, so it can never arrive.
    expect((await outboxOf(stack.db, t, 'live')).map((e) => e.type).sort()).toEqual(['email.opened', 'lead.created', 'lead.updated']);
  });

  it('takes a family of the catalog, names the one meant for a near miss, and refuses any other', async () => {
    const t = await newTenant(stack.db);
    const create = (events: string[]) =>
      api()
        .post('/v1/integrations/webhooks')
        .set(t.live)
        .send({ url: receiver.url('/families/validation'), events });
    expect((await create(['lead.*', 'campaign.*'])).body.data.events).toEqual(['lead.*', 'campaign.*']);
    const near = await create(['leads.*']);
    expect([near.status, near.body.errors[0].field]).toEqual([422, 'events.0']);
    expect(near.body.errors[0].message).toMatch(/"lead\.\*", .*; did you mean "lead\.\*"\?$/);
    // The test event goes to one endpoint when asked for; no subscription names it.
    for (const events of [['webhook.*'], ['lead.import.*'], ['*', 'lead.*']]) expect((await create(events)).status).toBe(422);
  });
});
