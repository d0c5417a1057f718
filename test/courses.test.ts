import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const create = (t: TestTenant, body: Record<string, unknown>) => stack.http().post('/v1/training/courses').set(t.sandbox).send(body);
const act = (t: TestTenant, id: string, action: string) => stack.http().post(`/v1/training/courses/${id}/${action}`).set(t.sandbox);

describe('training courses', () => {
  it('creates a draft course with counts and reads it back', async () => {
    const t = await newTenant(stack.db);
    const res = await create(t, { title: 'Selling to enterprises', description: 'Six modules', modulesCount: 6 });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ title: 'Selling to enterprises', status: 'draft', modulesCount: 6, enrollmentCount: 0 });
    expect(res.body.data.id).toMatch(/^crs/);
    expect((await stack.http().get(`/v1/training/courses/${res.body.data.id}`).set(t.sandbox)).body.data).toEqual(res.body.data);
  });

  it('validates with 422 field errors', async () => {
    const t = await newTenant(stack.db);
    const res = await create(t, { title: '', modulesCount: -1, status: 'published' });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['modulesCount', 'status', 'title']);
  });

  it('publishes and archives; illegal moves and deleting a published course are 409', async () => {
    const t = await newTenant(stack.db);
    const c = (await create(t, { title: 'Basics' })).body.data;
    expect((await act(t, c.id, 'publish')).body.data.status).toBe('published');
    const again = await act(t, c.id, 'publish');
    expect([again.status, again.body.message]).toEqual([409, 'Cannot publish a course that is published (only one that is draft)']);
    expect((await stack.http().delete(`/v1/training/courses/${c.id}`).set(t.sandbox)).status).toBe(409);
    expect((await act(t, c.id, 'archive')).body.data.status).toBe('archived');
    expect((await act(t, c.id, 'archive')).status).toBe(409);
    expect((await act(t, c.id, 'publish')).status).toBe(409);
    const draft = (await create(t, { title: 'Scrap' })).body.data;
    expect((await stack.http().delete(`/v1/training/courses/${draft.id}`).set(t.sandbox)).status).toBe(200);
    expect((await stack.http().get(`/v1/training/courses/${draft.id}`).set(t.sandbox)).status).toBe(404);
  });

  it('lists with status filter and pagination, updates, and keeps tenants and environments apart', async () => {
    const t = await newTenant(stack.db);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(t, { title: `Course ${i}` })).body.data.id);
    for (const id of ids.slice(0, 3)) await act(t, id, 'publish');
    const published = await stack.http().get('/v1/training/courses?status=published&limit=2&page=2').set(t.sandbox);
    expect(published.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, hasNext: false, hasPrev: true });
    expect(published.body.data).toHaveLength(1);
    expect((await stack.http().get('/v1/training/courses?status=live').set(t.sandbox)).status).toBe(400);
    const patched = await stack.http().patch(`/v1/training/courses/${ids[4]}`).set(t.sandbox).send({ modulesCount: 9 });
    expect(patched.body.data.modulesCount).toBe(9);
    const other = await newTenant(stack.db);
    expect((await stack.http().get(`/v1/training/courses/${ids[0]}`).set(other.sandbox)).status).toBe(404);
    expect((await stack.http().get(`/v1/training/courses/${ids[0]}`).set(t.live)).status).toBe(404);
    expect((await stack.http().get('/v1/training/courses').set(t.live)).body.data).toEqual([]);
  });
});
