import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

/**
 * A GET by ID gives its fair-share slot back while its read waits for a group (db/grouped-reads.ts),
 * as long as no other tenant is active: the tenant's next reads then reach the group instead of
 * waiting for a slot, and share its statement. Two slots alone, one while shared.
 */
let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack({ appDeps: { tenantMaxInFlight: 2, tenantSharedMaxInFlight: 1 } });
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

/** Counts the statements reading leads by ID while `run` runs. */
async function countLeadReads(run: () => Promise<void>): Promise<number> {
  const pool = (stack.db.driver as unknown as { master: { query: (q: { text: string }) => Promise<unknown> } }).master;
  const query = pool.query;
  let reads = 0;
  pool.query = (q) => {
    if (/^SELECT .* FROM "leads" t WHERE t\.id/.test(q.text)) reads++;
    return query.call(pool, q);
  };
  try {
    await run();
  } finally {
    pool.query = query;
  }
  return reads;
}

describe("a tenant's GETs by ID", () => {
  it("share statements beyond the tenant's two slots, each answered with its own lead", async () => {
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        stack
          .http()
          .post('/v1/leads')
          .set(tenant.live)
          .send(validLead({ firstName: `Read${n}` })),
      ),
    );
    const reads = await countLeadReads(async () => {
      const answers = await Promise.all(created.map((res) => stack.http().get(`/v1/leads/${res.body.data.id}`).set(tenant.live)));
      expect(answers.map((r) => [r.status, r.body.data.firstName])).toEqual(created.map((_, n) => [200, `Read${n}`]));
    });
    // Two requests at a time would take at least one statement for every two reads.
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThan(created.length / 2);
  });
});
