import { apiRoutes } from '../api/routes';
import type { AnyRoute } from '../api/http/route';
import type { IdType } from '../lib/ids';
import { idFixtures, paramTypes, seedEveryIdType } from './support/id-fixtures';
import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';

/**
 * Walks EVERY registered route with another tenant's IDs and with the other environment's key.
 * A route whose path names an ID type without a fixture below fails this test: add a fixture
 * (how to create such a record) when you add a resource.
 */
let stack: TestStack;
let owner: TestTenant;
let intruder: TestTenant;

const FIXTURES = idFixtures(() => stack.http());

/** Bodies that pass validation for the caller, so the request reaches the lookup that must fail. */
const BODIES: Record<string, (t: TestTenant) => Promise<unknown>> = {
  'post /v1/teams/:id/members': async (t) => ({ userIds: [await FIXTURES.user!.create(t.live)] }),
  'post /v1/leads/:id/merge': async (t) => ({ duplicateId: await FIXTURES.lead!.create(t.sandbox) }),
  // Within recover's 30-day window, so the body passes validation.
  'post /v1/integrations/webhooks/:id/recover': async () => ({ since: new Date(Date.now() - 86_400_000).toISOString() }),
  'put /v1/addons/:id/configuration': async () => ({ config: { a: 1 } }),
  'post /v1/campaigns/:id/enrollments': async (t) => ({ leadIds: [await FIXTURES.lead!.create(t.sandbox)] }),
};

/**
 * Routes that act on a global catalog record in the caller's own scope: any tenant may install a
 * catalog addon, so 404 is not the expected answer (test/addons.test.ts checks the scoping).
 */
const CALLER_SCOPED = new Set(['post /v1/addons/:id/install']);

const routes = apiRoutes({} as never).filter((r) => r.auth === 'tenant');
const withParams = routes.filter((r) => r.params && !CALLER_SCOPED.has(`${r.method} ${r.path}`));
const lists = routes.filter((r) => r.list && !r.params);
/** Users and teams are tenant-wide by design: the other environment's key may see them. */
const partitioned = withParams.filter((r) => Object.values(paramTypes(r)).some((t) => !FIXTURES[t]?.tenantWide));
let owned: Map<IdType, string>;

beforeAll(async () => {
  stack = await startStack();
  owner = await newTenant(stack.db);
  intruder = await newTenant(stack.db);
  owned = await seedEveryIdType(FIXTURES, owner, 'sandbox');
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
