import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import { Lead } from '../db/entities';
import { ScopedData } from '../db/scoped-data';
import type { TenantScope } from '../db/scoped-repository';
import { createTenant } from '../domain/tenants';

/**
 * The scope is applied last and cannot be dropped: whatever conditions a caller adds to a scoped
 * select (`where`, an OR that matches everything), and whatever a hand-written scoped statement
 * says, another tenant's (or the other environment's) rows never come back.
 */
let db: DataSource;
let mine: ScopedData;
let theirs: ScopedData;
let otherEnvironment: ScopedData;

const newLead = (data: ScopedData, email: string) =>
  data.repo(Lead).insert({
    email,
    emailNormalized: email,
    firstName: 'Ada',
    lastName: 'L',
    source: 'api',
    status: 'new',
    score: 0,
    customFields: {},
    createdBy: null,
  });

beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 3 });
  const scopeOf = async (name: string, environment: TenantScope['environment']) => {
    const { tenant } = await createTenant(db, { name, plan: 'enterprise' });
    return new ScopedData(db.manager, { tenantId: tenant.id, environment });
  };
  mine = await scopeOf('Scoped data: mine', 'live');
  theirs = await scopeOf('Scoped data: theirs', 'live');
  otherEnvironment = new ScopedData(db.manager, { ...mine.scope, environment: 'sandbox' });
  await newLead(mine, 'mine@example.com');
  await newLead(theirs, 'theirs@example.com');
  await newLead(otherEnvironment, 'sandbox@example.com');
});
afterAll(() => db.destroy());

const emails = (leads: Lead[]) => leads.map((l) => l.email).sort();

describe('a scoped select', () => {
  it('keeps the tenant and environment when a later where() is added', async () => {
    const leads = await mine.repo(Lead).select('l').where('l.score = 0').getMany();
    expect(emails(leads)).toEqual(['mine@example.com']);
  });

  it('keeps them when the condition is an OR that matches every row', async () => {
    const q = mine.repo(Lead).select('l').where('l.score = 0').where('1 = 1 OR l.email = :e', { e: 'theirs@example.com' });
    expect(emails(await q.getMany())).toEqual(['mine@example.com']);
    const [rows, total] = await q.orderBy('l.id').page(1, 10);
    expect([emails(rows), total]).toEqual([['mine@example.com'], 1]);
  });
});

describe('a scoped statement', () => {
  it('reads only the scope rows through from()', async () => {
    const rows = await mine.sql<{ email: string }>((q) => `SELECT l.email FROM ${q.from(Lead, 'l')} ORDER BY l.email`);
    expect(rows).toEqual([{ email: 'mine@example.com' }]);
  });

  it('refuses a statement that names a table without applying the scope', async () => {
    await expect(mine.sql((q) => `UPDATE ${q.table(Lead)} SET score = 1`)).rejects.toThrow(/never applies the scope/);
    const [theirLead] = await theirs.repo(Lead).find();
    expect(theirLead.score).toBe(0);
  });
});
