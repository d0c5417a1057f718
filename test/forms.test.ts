import { EngagementEvent, OutboxEvent } from '../db/entities';
import { decodeId } from '../lib/ids';
import { landingPageTemplate } from '../domain/ai/templates/landing-page';
import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;
let tenant: TestTenant;
beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
  await stack.subscribe(tenant);
});
afterAll(() => stack.stop());

const contactForm = {
  name: 'Contact us',
  fields: [
    { name: 'email', label: 'Email', type: 'email', required: true, mapsTo: 'email' },
    { name: 'first', label: 'First name', mapsTo: 'firstName' },
    { name: 'plan', label: 'Plan', type: 'select', options: ['basic', 'pro'], required: true },
    { name: 'consent', label: 'Consent', type: 'checkbox' },
  ],
};

const formSubmittedFor = async (formId: string) =>
  (await stack.db.getRepository(OutboxEvent).find({ where: { type: 'form.submitted' } })).filter(
    (e) => (e.data as { formId: string }).formId === formId,
  );

describe('forms', () => {
  it('creates a form and accepts a public JSON submission that creates the lead and emits form.submitted', async () => {
    const form = (await stack.http().post('/v1/forms').set(tenant.live).send(contactForm)).body.data;
    expect(form).toMatchObject({
      name: 'Contact us',
      status: 'active',
      submissionCount: 0,
      submitPath: `/v1/public/forms/${form.id}/submissions`,
    });
    const res = await stack
      .http()
      .post(form.submitPath)
      .send({ email: 'Form.Lead@example.com', first: 'Fay', plan: 'pro', consent: true, ignored: 'x' });
    expect(res.status).toBe(201);
    const lead = (await stack.http().get(`/v1/leads/${res.body.data.leadId}`).set(tenant.live)).body.data;
    expect(lead).toMatchObject({
      email: 'Form.Lead@example.com',
      firstName: 'Fay',
      source: 'web',
      customFields: { plan: 'pro', consent: true },
    });
    const [event] = await formSubmittedFor(form.id);
    expect(event.data).toEqual({
      formId: form.id,
      leadId: lead.id,
      fields: { email: 'Form.Lead@example.com', first: 'Fay', plan: 'pro', consent: true },
    });
    expect(event.environment).toBe('live');
    const engagement = await stack.db
      .getRepository(EngagementEvent)
      .findOneBy({ leadId: decodeId('lead', lead.id) as string, type: 'form_submission' });
    expect(engagement?.details).toEqual({ formId: form.id });
  });

  it('links a second submission with the same email to the lead, filling only what the lead lacks', async () => {
    const form = (await stack.http().post('/v1/forms').set(tenant.live).send(contactForm)).body.data;
    const a = await stack.http().post(form.submitPath).send({ email: 'again@example.com', plan: 'basic' });
    const b = await stack.http().post(form.submitPath).send({ email: 'AGAIN@example.com', plan: 'pro', first: 'Al', consent: true });
    expect(b.body.data.leadId).toBe(a.body.data.leadId);
    const lead = (await stack.http().get(`/v1/leads/${a.body.data.leadId}`).set(tenant.live)).body.data;
    expect(lead).toMatchObject({ firstName: 'again', customFields: { plan: 'basic', consent: false } });
    const subs = await stack.http().get(`/v1/forms/${form.id}/submissions`).set(tenant.live);
    expect(subs.body.pagination.total).toBe(2);
    expect(subs.body.data[0].fields).toMatchObject({ plan: 'pro', first: 'Al', consent: true });
    expect((await stack.http().get(`/v1/forms/${form.id}`).set(tenant.live)).body.data.submissionCount).toBe(2);
  });

  it('never overwrites what the tenant set on a lead: an anonymous submission only fills empty fields', async () => {
    const form = (
      await stack
        .http()
        .post('/v1/forms')
        .set(tenant.live)
        .send({
          name: 'Callback',
          fields: [
            { name: 'email', label: 'Email', type: 'email', required: true, mapsTo: 'email' },
            { name: 'first', label: 'First name', mapsTo: 'firstName' },
            { name: 'last', label: 'Last name', mapsTo: 'lastName' },
            { name: 'phone', label: 'Phone', type: 'tel', mapsTo: 'phone' },
            { name: 'tier', label: 'Tier' },
            { name: 'company', label: 'Company' },
          ],
        })
    ).body.data;
    const lead = (
      await stack
        .http()
        .post('/v1/leads')
        .set(tenant.live)
        .send({ email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper', customFields: { tier: 'enterprise' } })
        .expect(201)
    ).body.data;
    const res = await stack
      .http()
      .post(form.submitPath)
      .send({ email: 'GRACE@example.com', first: 'Mallory', last: 'M.', phone: '+44 20 7946 0999', tier: 'free', company: 'Navy' })
      .expect(201);
    expect(res.body.data.leadId).toBe(lead.id);
    const after = (await stack.http().get(`/v1/leads/${lead.id}`).set(tenant.live)).body.data;
    expect(after).toMatchObject({
      firstName: 'Grace',
      lastName: 'Hopper',
      phone: '+44 20 7946 0999',
      customFields: { tier: 'enterprise', company: 'Navy' },
    });
  });

  it('checks mapped inputs with the lead schemas: too long is 422 naming the input, never a 500', async () => {
    const form = (await stack.http().post('/v1/forms').set(tenant.live).send(contactForm)).body.data;
    const longName = await stack
      .http()
      .post(form.submitPath)
      .send({ email: 'long@example.com', plan: 'pro', first: 'A'.repeat(200) });
    expect([longName.status, longName.body.errors.map((e: { field: string }) => e.field)]).toEqual([422, ['first']]);
    const longEmail = await stack
      .http()
      .post(form.submitPath)
      .send({ email: `${'a'.repeat(390)}@example.com`, plan: 'pro' });
    expect([longEmail.status, longEmail.body.errors.map((e: { field: string }) => e.field)]).toEqual([422, ['email']]);
    const html = await stack
      .http()
      .post(form.submitPath)
      .type('form')
      .send(`email=x%40example.com&plan=pro&first=${'B'.repeat(101)}`);
    expect(html.status).toBe(422);
  });

  it('validates submissions against the form, and form definitions themselves', async () => {
    const form = (await stack.http().post('/v1/forms').set(tenant.live).send(contactForm)).body.data;
    const bad = await stack.http().post(form.submitPath).send({ email: 'nope', plan: 'gold' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([
      { field: 'email', message: 'Must be a valid email address' },
      { field: 'plan', message: 'Must be one of basic, pro' },
    ]);
    // Every form requires its email field, so the document marks the body required: none is a 400.
    const empty = await stack.http().post(form.submitPath);
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([{ field: 'body', message: 'Required' }]);
    expect((await stack.http().post(form.submitPath).send({})).body.errors).toEqual([
      { field: 'email', message: 'Required' },
      { field: 'plan', message: 'Required' },
    ]);
    const doc = (await stack.http().get('/v1/openapi.json')).body;
    expect(doc.paths['/v1/public/forms/{id}/submissions'].post.requestBody).toMatchObject({ required: true });
    const noEmail = await stack
      .http()
      .post('/v1/forms')
      .set(tenant.live)
      .send({ name: 'X', fields: [{ name: 'a', label: 'A' }] });
    expect(noEmail.status).toBe(422);
    expect(noEmail.body.errors[0].field).toBe('fields');
  });

  it('answers an HTML form post with a thank-you page or the configured redirect', async () => {
    const form = (
      await stack
        .http()
        .post('/v1/forms')
        .set(tenant.live)
        .send({ ...contactForm, redirectUrl: 'https://example.com/thanks' })
    ).body.data;
    const redirected = await stack.http().post(form.submitPath).type('form').send('email=html%40example.com&plan=basic&consent=on');
    expect(redirected.status).toBe(303);
    expect(redirected.headers.location).toBe('https://example.com/thanks');
    await stack.http().patch(`/v1/forms/${form.id}`).set(tenant.live).send({ redirectUrl: null, successMessage: '<b>Thanks</b>' });
    const page = await stack.http().post(form.submitPath).type('form').send('email=html2%40example.com&plan=basic');
    expect(page.status).toBe(201);
    expect(page.text).toContain('&lt;b&gt;Thanks&lt;/b&gt;');
  });

  it('names an input an HTML form post gives more than once with a 422 saying so, and records nothing', async () => {
    const form = (await stack.http().post('/v1/forms').set(tenant.live).send(contactForm)).body.data;
    const twice = await stack
      .http()
      .post(form.submitPath)
      .type('form')
      .send('email=a%40example.com&email=b%40example.com&plan=basic&plan=pro');
    expect([twice.status, twice.body.success, twice.body.errors]).toEqual([
      422,
      false,
      [
        { field: 'email', message: 'Given more than once; give it once' },
        { field: 'plan', message: 'Given more than once; give it once' },
      ],
    ]);
    // A JSON list of values is more than one value too.
    const list = await stack
      .http()
      .post(form.submitPath)
      .send({ email: 'c@example.com', plan: ['basic', 'pro'] });
    expect([list.status, list.body.errors]).toEqual([422, [{ field: 'plan', message: 'Given more than once; give it once' }]]);
    expect((await stack.http().get(`/v1/forms/${form.id}`).set(tenant.live)).body.data.submissionCount).toBe(0);
    // An input the form does not define is ignored, however often it is given (a checkbox group of the page's own).
    const extra = await stack.http().post(form.submitPath).type('form').send('email=d%40example.com&plan=basic&topic=a&topic=b');
    expect(extra.status).toBe(201);
  });

  it("accepts a landing page's form posts (its form section becomes a form) and 404s archived or unknown forms", async () => {
    const pageDef = landingPageTemplate({ prompt: 'webinar signup for analytics' });
    const page = (await stack.http().post('/v1/landing-pages').set(tenant.sandbox).send(pageDef)).body.data;
    const res = await stack
      .http()
      .post(`/v1/public/forms/${page.id}/submissions`)
      .type('form')
      .send('email=visitor%40example.com&firstName=Vi');
    expect(res.status).toBe(201);
    const forms = await stack.http().get('/v1/forms').set(tenant.sandbox);
    expect(forms.body.data.find((f: { landingPageId: string }) => f.landingPageId === page.id)).toBeDefined();
    const form = (await stack.http().post('/v1/forms').set(tenant.live).send(contactForm)).body.data;
    await stack.http().patch(`/v1/forms/${form.id}`).set(tenant.live).send({ status: 'archived' });
    expect((await stack.http().post(form.submitPath).send({ email: 'a@b.co', plan: 'pro' })).status).toBe(404);
    expect((await stack.http().post('/v1/public/forms/garbage/submissions').send({ email: 'a@b.co' })).status).toBe(404);
  });
});
