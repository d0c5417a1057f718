import type { z } from 'zod';
import { apiRoutes } from '../api/routes';
import type { AnyRoute } from '../api/http/route';
import type { IdType } from '../lib/ids';
import { landingPageTemplate } from '../domain/ai/templates/landing-page';
import { sequenceTemplate } from '../domain/ai/templates/sequence';
import { statusesTemplate } from '../domain/ai/templates/statuses';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

/**
 * Walks EVERY registered route with another tenant's IDs and with the other environment's key.
 * A route whose path names an ID type without a fixture below fails this test: add a fixture
 * (how to create such a record) when you add a resource.
 */
let stack: TestStack;
let owner: TestTenant;
let intruder: TestTenant;

/** tenantWide: shared by both environments; global: a catalog record every tenant sees (addons). */
type Fixture = { create: (t: TestTenant) => Promise<string>; tenantWide?: boolean; global?: boolean };
const post = async (path: string, headers: Record<string, string>, body: object) => {
  const res = await stack.http().post(path).set(headers).send(body);
  if (res.status !== 201) throw new Error(`fixture ${path} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
};
const FIXTURES: Partial<Record<IdType, Fixture>> = {
  lead: { create: (t) => post('/v1/leads', t.sandbox, validLead()) },
  apiKey: { create: (t) => post('/v1/api-keys', t.sandbox, { name: 'isolation' }) },
  user: {
    tenantWide: true,
    create: (t) =>
      post('/v1/users', t.sandbox, { email: `iso-${Math.random()}@example.com`, password: 'long enough', firstName: 'I', lastName: 'S' }),
  },
  team: { tenantWide: true, create: (t) => post('/v1/teams', t.sandbox, { name: 'Isolation' }) },
  form: {
    create: (t) =>
      post('/v1/forms', t.sandbox, {
        name: 'Isolation',
        fields: [{ name: 'email', label: 'Email', type: 'email', required: true, mapsTo: 'email' }],
      }),
  },
  opportunity: { create: (t) => post('/v1/opportunities', t.sandbox, { name: 'Isolation deal', value: 1 }) },
  status: { create: (t) => post('/v1/config/statuses', t.sandbox, statusesTemplate({ prompt: `isolation ${Math.random()}` }).statuses[1]) },
  workflow: { create: (t) => post('/v1/workflows', t.sandbox, sequenceTemplate({ prompt: 'isolation welcome series' })) },
  landingPage: { create: (t) => post('/v1/landing-pages', t.sandbox, landingPageTemplate({ prompt: `isolation page ${Math.random()}` })) },
  task: { create: (t) => post('/v1/tasks', t.sandbox, { title: 'Isolation' }) },
  partner: { create: (t) => post('/v1/partners', t.sandbox, { email: 'iso@example.com', firstName: 'I', lastName: 'S' }) },
  file: {
    create: async (t) => {
      const res = await stack.http().post('/v1/files/upload').set(t.sandbox).attach('file', Buffer.from('isolation'), 'iso.txt');
      if (res.status !== 201) throw new Error(`fixture upload failed: ${res.status}`);
      return res.body.data.id as string;
    },
  },
  course: { create: (t) => post('/v1/training/courses', t.sandbox, { title: 'Isolation' }) },
  agentExecution: {
    create: (t) => post('/v1/agents/executions', t.sandbox, { agent: 'caller', outcome: 'success', requiresApproval: true }),
  },
  // The owner installs a catalog addon; the others' calls must not reach that installation.
  addon: {
    global: true,
    create: async (t) => {
      const catalog = await stack.http().get('/v1/addons/catalog').set(t.sandbox);
      return post(`/v1/addons/${catalog.body.data[0].id}/install`, t.sandbox, {});
    },
  },
  commission: {
    create: async (t) => post('/v1/commissions', t.sandbox, { partnerId: await FIXTURES.partner!.create(t), amount: 10, currency: 'USD' }),
  },
  webhook: { create: (t) => post('/v1/integrations/webhooks', t.sandbox, { url: 'http://127.0.0.1:9/hook', events: ['*'] }) },
  emailTemplate: {
    create: (t) => post('/v1/communications/templates', t.sandbox, { name: 'Iso', subject: 'Hi', body: 'Hello {{firstName}}' }),
  },
  message: {
    create: async (t) => {
      const res = await stack
        .http()
        .post('/v1/communications/send/email')
        .set(t.sandbox)
        .send({ to: 'iso@example.com', subject: 'Hi', body: 'Hello' });
      if (res.status !== 200) throw new Error(`fixture send/email failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data.id as string;
    },
  },
  campaign: {
    create: async (t) => {
      const workflowId = await post('/v1/workflows', t.sandbox, sequenceTemplate({ prompt: 'isolation campaign' }));
      return post('/v1/campaigns', t.sandbox, { name: 'Isolation', workflowId, status: 'active' });
    },
  },
  delivery: {
    create: async (t) => {
      const endpoint = await post('/v1/integrations/webhooks', t.sandbox, { url: 'http://127.0.0.1:9/hook', events: ['*'] });
      await stack.http().post(`/v1/integrations/webhooks/${endpoint}/test`).set(t.sandbox);
      for (let i = 0; i < 100; i++) {
        const list = await stack.http().get(`/v1/integrations/webhooks/${endpoint}/deliveries`).set(t.sandbox);
        if (list.body.data?.length) return list.body.data[0].id as string;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('no delivery appeared for the test event');
    },
  },
};

/** Bodies that pass validation for the caller, so the request reaches the lookup that must fail. */
const BODIES: Record<string, (t: TestTenant) => Promise<unknown>> = {
  'post /v1/teams/:id/members': async (t) => ({ userIds: [await FIXTURES.user!.create(t)] }),
  'post /v1/leads/:id/merge': async (t) => ({ duplicateId: await FIXTURES.lead!.create(t) }),
  'post /v1/integrations/webhooks/:id/recover': async () => ({ since: new Date(0).toISOString() }),
  'put /v1/addons/:id/configuration': async () => ({ config: { a: 1 } }),
  'post /v1/campaigns/:id/enrollments': async (t) => ({ leadIds: [await FIXTURES.lead!.create(t)] }),
};

/**
 * Routes that act on a global catalog record in the caller's own scope: any tenant may install a
 * catalog addon, so 404 is not the expected answer (test/addons.test.ts checks the scoping).
 */
const CALLER_SCOPED = new Set(['post /v1/addons/:id/install']);

function paramTypes(route: AnyRoute): Record<string, IdType> {
  const shape = (route.params as z.ZodObject | undefined)?.shape ?? {};
  return Object.fromEntries(Object.entries(shape).map(([name, schema]) => [name, (schema as z.ZodType).meta()?.['x-id-type'] as IdType]));
}

const routes = apiRoutes({} as never).filter((r) => r.auth === 'tenant');
const withParams = routes.filter((r) => r.params && !CALLER_SCOPED.has(`${r.method} ${r.path}`));
const lists = routes.filter((r) => r.list && !r.params);
/** Users and teams are tenant-wide by design: the other environment's key may see them. */
const partitioned = withParams.filter((r) => Object.values(paramTypes(r)).some((t) => !FIXTURES[t]?.tenantWide));
const owned = new Map<IdType, string>();

beforeAll(async () => {
  stack = await startStack();
  owner = await newTenant(stack.db);
  intruder = await newTenant(stack.db);
  for (const [type, fixture] of Object.entries(FIXTURES) as [IdType, Fixture][]) owned.set(type, await fixture.create(owner));
});
afterAll(() => stack.stop());

async function call(route: AnyRoute, path: string, headers: Record<string, string>, caller: TestTenant) {
  const body = BODIES[`${route.method} ${route.path}`] ? await BODIES[`${route.method} ${route.path}`](caller) : {};
  const req = stack.http()[route.method](path).set(headers);
  return route.method === 'get' || route.method === 'delete' ? req : req.send(body as object);
}

describe('tenant isolation', () => {
  it('has a fixture for every ID type a route takes in its path', () => {
    const missing = withParams.flatMap((r) =>
      Object.values(paramTypes(r))
        .filter((t) => !FIXTURES[t])
        .map((t) => `${t} (${r.method.toUpperCase()} ${r.path})`),
    );
    expect(missing).toEqual([]);
  });

  it.each(withParams.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))(
    "%s is 404 with another tenant's key and IDs",
    async (_name, route) => {
      const types = paramTypes(route);
      const path = route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => owned.get(types[name]) as string);
      const res = await call(route, path, intruder.sandbox, intruder);
      expect([res.status, res.body.success]).toEqual([404, false]);
    },
  );

  it.each(partitioned.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))(
    "%s is 404 with the other environment's key",
    async (_name, route) => {
      const types = paramTypes(route);
      const path = route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => owned.get(types[name]) as string);
      const res = await call(route, path, owner.live, owner);
      expect([res.status, res.body.success]).toEqual([404, false]);
    },
  );

  it.each(lists.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))(
    "%s never lists another tenant's records",
    async (_name, route) => {
      const res = await stack.http().get(route.path).set(intruder.sandbox);
      expect(res.status).toBe(200);
      const ids = new Set([...owned].filter(([type]) => !FIXTURES[type]?.global).map(([, id]) => id));
      expect(res.body.data.filter((row: { id?: string }) => row.id && ids.has(row.id))).toEqual([]);
    },
  );
});
