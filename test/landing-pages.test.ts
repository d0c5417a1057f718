import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;
let tenant: TestTenant;
beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

const hero = { sectionId: 'hero', type: 'hero', label: 'Hero', visible: true, order: 0, heading: 'Spring offer' };
const signup = (fields: string[]) => ({ sectionId: 'signup', type: 'form', label: 'Sign up', visible: true, order: 1, fields });
const page = (slug: string) => ({
  name: 'Spring promo',
  slug,
  sections: [hero, signup(['email', 'firstName'])],
  seo: { title: 'Spring promo', metaDescription: '' },
  style: { primaryColor: '#aa0000', backgroundColor: '#ffffff', fontFamily: 'Inter, sans-serif' },
  content: '',
});

const create = async (slug: string) => (await stack.http().post('/v1/landing-pages').set(tenant.live).send(page(slug))).body.data;
const patch = (id: string, body: object, who = tenant.live) => stack.http().patch(`/v1/landing-pages/${id}`).set(who).send(body);
const submit = (id: string, body: Record<string, string>) => stack.http().post(`/v1/public/forms/${id}/submissions`).send(body);
const pageForm = async (pageId: string) =>
  (await stack.http().get('/v1/forms?limit=100').set(tenant.live)).body.data.find(
    (f: { landingPageId: string }) => f.landingPageId === pageId,
  );

describe('landing pages', () => {
  it('are edited in place: the hosted page serves the new copy, a new slug moves it, a taken slug is 409', async () => {
    const p = await create('edit-me');
    await create('taken');
    const res = await patch(p.id, {
      sections: [{ ...hero, heading: 'Summer offer' }, signup(['email'])],
      seo: { title: 'Summer', metaDescription: 'x' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: p.id, name: 'Spring promo', slug: 'edit-me', seo: { title: 'Summer' } });
    const hosted = await stack.http().get(p.publicPath);
    expect(hosted.text).toContain('Summer offer');
    expect(hosted.text).not.toContain('Spring offer');

    const moved = await patch(p.id, { slug: 'summer' });
    expect(moved.body.data.publicPath).toMatch(/\/summer$/);
    expect((await stack.http().get(p.publicPath)).status).toBe(404);
    expect((await stack.http().get(moved.body.data.publicPath)).status).toBe(200);
    expect((await patch(p.id, { slug: 'summer' })).status).toBe(200); // its own slug is not "taken"

    const conflict = await patch(p.id, { slug: 'taken' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.errors).toEqual([{ field: 'slug', message: 'Already in use' }]);
  });

  it('checks an edit like a create, and another tenant cannot edit the page', async () => {
    const p = await create('checked');
    const dup = await patch(p.id, { sections: [hero, { ...signup(['email']), order: 0 }] });
    expect(dup.status).toBe(422);
    expect(dup.body.errors).toContainEqual({ field: 'sections.1.order', message: 'Duplicate order' });
    const noEmail = await patch(p.id, { sections: [signup(['firstName'])] });
    expect(noEmail.body.errors).toContainEqual({ field: 'sections.0.fields', message: 'A form collects at least the email' });
    expect((await patch(p.id, { publicPath: '/x' })).status).toBe(422);
    expect((await patch(p.id, { name: 'Mine' }, tenant.sandbox)).status).toBe(404);
    const other = await newTenant(stack.db);
    expect((await patch(p.id, { name: 'Mine' }, other.live)).status).toBe(404);
    expect((await stack.http().get(`/v1/landing-pages/${p.id}`).set(tenant.live)).body.data.name).toBe('Spring promo');
  });

  it("keeps the page's form in step: new fields are collected, a removed form section or a deleted page stops submissions", async () => {
    const p = await create('form-follows');
    expect((await submit(p.id, { email: 'first@example.com', firstName: 'Fi' })).status).toBe(201);
    const form = await pageForm(p.id);
    expect(form.fields.map((f: { name: string }) => f.name)).toEqual(['email', 'firstName']);

    // A page edit that leaves the form section as it was keeps the form's own edits.
    await stack.http().patch(`/v1/forms/${form.id}`).set(tenant.live).send({ name: 'Spring signups', description: 'Kept' });
    await patch(p.id, { name: 'Spring promo 2' });
    expect(await pageForm(p.id)).toMatchObject({ name: 'Spring signups', description: 'Kept', status: 'active' });

    await patch(p.id, { sections: [hero, signup(['email', 'phone'])] });
    expect((await pageForm(p.id)).fields.map((f: { name: string }) => f.name)).toEqual(['email', 'phone']);
    const withPhone = await submit(p.id, { email: 'second@example.com', phone: '+14155550100' });
    expect(withPhone.status).toBe(201);
    const lead = await stack.http().get(`/v1/leads/${withPhone.body.data.leadId}`).set(tenant.live);
    expect(lead.body.data.phone).toBe('+14155550100');

    await patch(p.id, { sections: [hero] });
    expect((await pageForm(p.id)).status).toBe('archived');
    expect((await submit(p.id, { email: 'third@example.com' })).status).toBe(404);
    await patch(p.id, { sections: [hero, signup(['email'])] });
    expect((await pageForm(p.id)).status).toBe('active');
    expect((await submit(p.id, { email: 'fourth@example.com' })).status).toBe(201);

    expect((await stack.http().delete(`/v1/landing-pages/${p.id}`).set(tenant.live)).status).toBe(200);
    expect(await pageForm(p.id)).toMatchObject({ status: 'archived', submissionCount: 3 });
    expect((await submit(p.id, { email: 'fifth@example.com' })).status).toBe(404);
  });
});
