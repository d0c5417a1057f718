import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import { Lead, Team, TeamMember, User } from '../db/entities';
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

describe('a scoped statement that writes', () => {
  it('insert() writes the scope tenant and environment whatever the values say', async () => {
    const [row] = await mine.sqlEntities(
      Lead,
      (q) =>
        `${q.insert(Lead, {
          tenantId: theirs.scope.tenantId,
          environment: 'sandbox',
          email: 'inserted@example.com',
          emailNormalized: 'inserted@example.com',
          firstName: 'Ins',
          lastName: 'Erted',
          source: 'api',
          status: 'new',
        })} RETURNING *`,
    );
    expect([row.tenantId, row.environment]).toEqual([mine.scope.tenantId, 'live']);
    expect(emails(await theirs.repo(Lead).find())).toEqual(['theirs@example.com']);
    await mine.repo(Lead).deleteById(row.id);
  });

  it("a repository's insert() does the same", async () => {
    const row = await mine.repo(Lead).insert({
      tenantId: theirs.scope.tenantId,
      environment: 'sandbox',
      email: 'repo-insert@example.com',
      emailNormalized: 'repo-insert@example.com',
      firstName: 'Repo',
      lastName: 'Insert',
      source: 'api',
      status: 'new',
    });
    expect([row.tenantId, row.environment]).toEqual([mine.scope.tenantId, 'live']);
    expect(emails(await theirs.repo(Lead).find())).toEqual(['theirs@example.com']);
    await mine.repo(Lead).deleteById(row.id);
  });

  it('insertMany() writes the scope tenant and environment whatever the rows say, each sent once', async () => {
    const rows = ['many-1@example.com', 'many-2@example.com'].map((email) => ({
      tenantId: theirs.scope.tenantId,
      environment: 'sandbox',
      email,
      emailNormalized: email,
      firstName: 'Many',
      lastName: 'Rows',
      source: 'api',
      status: 'new',
    }));
    let params: unknown[] = [];
    const written = await mine.sqlEntities(Lead, (q) => {
      const text = `${q.insertMany(Lead, rows)} RETURNING *`;
      params = q.params.values;
      return text;
    });
    expect(written.map((l) => [l.email, l.tenantId, l.environment])).toEqual([
      ['many-1@example.com', mine.scope.tenantId, 'live'],
      ['many-2@example.com', mine.scope.tenantId, 'live'],
    ]);
    // The scope is one parameter each for the statement, not a column array repeating it per row.
    expect(params.slice(0, 2)).toEqual([mine.scope.tenantId, 'live']);
    const pair = (a: string, b: string) => `{"${a}","${b}"}`;
    expect(params.slice(2).sort()).toEqual(
      [
        pair('many-1@example.com', 'many-2@example.com'),
        pair('many-1@example.com', 'many-2@example.com'),
        pair('Many', 'Many'),
        pair('Rows', 'Rows'),
        pair('api', 'api'),
        pair('new', 'new'),
      ].sort(),
    );
    expect(emails(await theirs.repo(Lead).find())).toEqual(['theirs@example.com']);
    for (const l of written) await mine.repo(Lead).deleteById(l.id);
  });

  it('deleteFrom() keeps the scope when the condition is an OR naming other rows', async () => {
    const doomed = await newLead(mine, 'doomed@example.com');
    await mine.sql((q) =>
      q.deleteFrom(Lead, `id = ${q.value(doomed.id)} OR tenant_id = ${q.value(theirs.scope.tenantId)} OR environment = 'sandbox'`),
    );
    expect(await mine.repo(Lead).findById(doomed.id)).toBeNull();
    expect(emails(await mine.repo(Lead).find())).toEqual(['mine@example.com']);
    expect(emails(await theirs.repo(Lead).find())).toEqual(['theirs@example.com']);
    expect(emails(await otherEnvironment.repo(Lead).find())).toEqual(['sandbox@example.com']);
  });
});

describe('scoped rows without an id (team_members)', () => {
  const memberOf = async (data: ScopedData, email: string) => {
    const user = await data.repo(User).insert({ email, passwordHash: 'x', firstName: 'T', lastName: 'M', roleId: 'member' });
    const team = await data.repo(Team).insert({ name: `Team of ${email}` });
    await data.rows(TeamMember).insertIgnoringConflicts([{ teamId: team.id, userId: user.id }]);
    return { user, team };
  };

  it('reads, writes and deletes only the scope tenant rows', async () => {
    const own = await memberOf(mine, 'member@mine.example');
    const other = await memberOf(theirs, 'member@theirs.example');
    // The same pair again is ignored, not a unique violation.
    await mine.rows(TeamMember).insertIgnoringConflicts([{ teamId: own.team.id, userId: own.user.id }]);
    expect((await mine.rows(TeamMember).find()).map((m) => [m.teamId, m.userId])).toEqual([[own.team.id, own.user.id]]);
    expect(await mine.rows(TeamMember).find({ where: { teamId: other.team.id } })).toEqual([]);
    expect(await mine.rows(TeamMember).deleteWhere({ teamId: other.team.id })).toBe(0);
    expect(await theirs.rows(TeamMember).count()).toBe(1);
    expect(await mine.rows(TeamMember).deleteWhere({ teamId: own.team.id })).toBe(1);
  });
});
