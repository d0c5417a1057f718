import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const catalog = (t: TestTenant, q = '') => stack.http().get(`/v1/addons/catalog${q}`).set(t.sandbox);
const act = (t: TestTenant, id: string, action: string, headers = t.sandbox) =>
  stack.http().post(`/v1/addons/${id}/${action}`).set(headers);
const firstAddon = async (t: TestTenant) => (await catalog(t)).body.data[0].id as string;

describe('addons', () => {
  it('serves the seeded catalog with category and search filters and pagination', async () => {
    const t = await newTenant(stack.db);
    const all = await catalog(t);
    expect(all.status).toBe(200);
    expect(all.body.pagination.total).toBeGreaterThanOrEqual(6);
    const item = all.body.data[0];
    expect(Object.keys(item).sort()).toEqual(['category', 'description', 'id', 'name', 'pricing', 'version']);
    expect(Object.keys(item.pricing).sort()).toEqual(['monthlyPrice', 'type']);
    expect(item.id).toMatch(/^add/);
    const email = await catalog(t, '?category=email');
    expect(email.body.data.map((a: { name: string }) => a.name)).toEqual(['Email Warm-up']);
    const search = await catalog(t, '?search=CALENDARS');
    expect(search.body.data.map((a: { name: string }) => a.name)).toEqual(['Calendar Sync']);
    const page = await catalog(t, '?limit=4&page=2');
    expect(page.body.pagination).toMatchObject({ page: 2, limit: 4, totalPages: Math.ceil(all.body.pagination.total / 4), hasPrev: true });
  });

  it('runs the lifecycle install -> active <-> suspended -> uninstalled, with 409 for illegal moves', async () => {
    const t = await newTenant(stack.db);
    const id = await firstAddon(t);
    const early = await act(t, id, 'activate');
    expect([early.status, early.body.message]).toEqual([
      404,
      `This addon is not installed here; install it first (POST /v1/addons/${id}/install)`,
    ]);
    const installed = await act(t, id, 'install');
    expect(installed.status).toBe(201);
    expect(installed.body.data).toMatchObject({ id, status: 'installed', config: {} });
    const again = await act(t, id, 'install');
    expect([again.status, again.body.message]).toEqual([
      409,
      'Cannot install an addon that is installed (only one never installed here, or uninstalled)',
    ]);
    expect((await act(t, id, 'suspend')).status).toBe(409);
    expect((await act(t, id, 'activate')).body.data.status).toBe('active');
    expect((await act(t, id, 'suspend')).body.data.status).toBe('suspended');
    expect((await act(t, id, 'activate')).body.data.status).toBe('active');
    const configured = await stack
      .http()
      .put(`/v1/addons/${id}/configuration`)
      .set(t.sandbox)
      .send({ config: { warmupDays: 14 } });
    expect([configured.status, configured.body.data.config]).toEqual([200, { warmupDays: 14 }]);
    expect((await act(t, id, 'uninstall')).body.data.status).toBe('uninstalled');
    const uninstallAgain = await act(t, id, 'uninstall');
    expect([uninstallAgain.status, uninstallAgain.body.message]).toEqual([
      409,
      'Cannot uninstall an addon that is uninstalled (only one that is installed, active or suspended)',
    ]);
    expect((await stack.http().put(`/v1/addons/${id}/configuration`).set(t.sandbox).send({ config: {} })).status).toBe(409);
    const reinstalled = await act(t, id, 'install');
    expect(reinstalled.body.data).toMatchObject({ status: 'installed', config: {} });
  });

  it('validates configuration bodies and unknown addons', async () => {
    const t = await newTenant(stack.db);
    const id = await firstAddon(t);
    await act(t, id, 'install');
    const bad = await stack.http().put(`/v1/addons/${id}/configuration`).set(t.sandbox).send({ config: 'on' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['config']);
    expect((await act(t, 'addAAAAAAAAAAAAA', 'install')).status).toBe(404);
  });

  it('lists installations per tenant and environment; installing acts in the caller’s own scope', async () => {
    const t = await newTenant(stack.db);
    const other = await newTenant(stack.db);
    const [a, b] = (await catalog(t)).body.data.map((x: { id: string }) => x.id);
    await act(t, a, 'install');
    await act(t, a, 'activate');
    await act(t, b, 'install');
    await act(t, b, 'uninstall');
    const installed = await stack.http().get('/v1/addons/installed').set(t.sandbox);
    expect(installed.body.data.map((i: { id: string; status: string }) => [i.id, i.status])).toEqual([[a, 'active']]);
    expect(installed.body.data[0].addon.id).toBe(a);
    const uninstalled = await stack.http().get('/v1/addons/installed?status=uninstalled').set(t.sandbox);
    expect(uninstalled.body.data.map((i: { id: string }) => i.id)).toEqual([b]);

    expect((await act(other, a, 'suspend')).status).toBe(404);
    expect((await act(t, a, 'suspend', t.live)).status).toBe(404);
    expect((await act(other, a, 'install')).body.data.status).toBe('installed');
    expect((await stack.http().get('/v1/addons/installed').set(t.live)).body.data).toEqual([]);
    const mine = await stack.http().get('/v1/addons/installed').set(t.sandbox);
    expect(mine.body.data.map((i: { status: string }) => i.status)).toEqual(['active']);
  });
});
