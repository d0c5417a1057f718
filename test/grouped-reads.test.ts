import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import { Lead } from '../db/entities';
import { scoped, type TenantScope } from '../db/scoped-repository';
import { createTenant } from '../domain/tenants';

/**
 * Reads by ID outside a transaction share a statement when they arrive together (db/grouped-reads.ts):
 * each still gets exactly its own row of its own scope, as if read alone.
 */
let db: DataSource;
let mine: TenantScope;
let theirs: TenantScope;
let statements: string[] = [];

beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 3 });
  mine = { tenantId: (await createTenant(db, { name: 'Grouped reads: mine', plan: 'enterprise' })).tenant.id, environment: 'live' };
  theirs = { tenantId: (await createTenant(db, { name: 'Grouped reads: theirs', plan: 'enterprise' })).tenant.id, environment: 'live' };
  // Every statement the pool runs outside a transaction, by its text.
  const pool = (db.driver as unknown as { master: { query: (q: { text: string }) => Promise<unknown> } }).master;
  const query = pool.query.bind(pool);
  pool.query = (q) => (statements.push(q.text), query(q));
});
afterAll(() => db.destroy());

const newLead = (scope: TenantScope, n: number) =>
  scoped(db.manager, Lead, scope).insert({
    email: `g${n}@example.com`,
    emailNormalized: `g${n}@example.com`,
    firstName: `G${n}`,
    lastName: 'R',
    customFields: { n },
  });

describe('reads by ID that arrive together', () => {
  it('share statements, and each gets its own row as a read alone would', async () => {
    const leads = await Promise.all(Array.from({ length: 20 }, (_, n) => newLead(mine, n)));
    const repo = scoped(db.manager, Lead, mine);
    const alone = await Promise.all(leads.map((l) => db.getRepository(Lead).findOneByOrFail({ id: l.id })));
    statements = [];
    const together = await Promise.all(leads.map((l) => repo.findById(l.id)));
    expect(together).toEqual(alone);
    expect(together.map((l) => l?.customFields)).toEqual(leads.map((_, n) => ({ n })));
    // The first read goes at once and alone; the other 19 wait for it and go in one statement.
    expect(statements.filter((s) => s.includes('FROM "leads"'))).toHaveLength(2);
  });

  it("keeps scopes apart: another tenant's ID in the same moment finds nothing", async () => {
    const [lead, other] = await Promise.all([newLead(mine, 100), newLead(theirs, 101)]);
    const reads = await Promise.all([
      scoped(db.manager, Lead, mine).findById(lead.id),
      scoped(db.manager, Lead, mine).findById(other.id),
      scoped(db.manager, Lead, theirs).findById(lead.id),
      scoped(db.manager, Lead, theirs).findById(other.id),
      scoped(db.manager, Lead, { ...mine, environment: 'sandbox' }).findById(lead.id),
    ]);
    expect(reads.map((l) => l?.id ?? null)).toEqual([lead.id, null, null, other.id, null]);
  });

  it('gives two reads of one ID entities of their own, JSON values included', async () => {
    const lead = await newLead(mine, 200);
    const repo = scoped(db.manager, Lead, mine);
    const [a, b, c] = await Promise.all([repo.findById(lead.id), repo.findById(lead.id), repo.findById(lead.id)]);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    (b as Lead).customFields.changed = true;
    expect(c?.customFields).toEqual({ n: 200 });
    expect(a?.customFields).toEqual({ n: 200 });
  });

  it('fails only the read whose ID the database refuses; the others of its group still get their rows', async () => {
    const leads = await Promise.all([newLead(mine, 300), newLead(mine, 301), newLead(mine, 302)]);
    const repo = scoped(db.manager, Lead, mine);
    const reads = await Promise.allSettled([
      repo.findById(leads[0].id),
      repo.findById(leads[1].id),
      repo.findById('99999999999999999999999'), // beyond bigint: the statement fails
      repo.findById(leads[2].id),
    ]);
    expect(reads.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(reads.map((r) => (r.status === 'fulfilled' ? r.value?.id : 'refused'))).toEqual([
      leads[0].id,
      leads[1].id,
      'refused',
      leads[2].id,
    ]);
  });
});
