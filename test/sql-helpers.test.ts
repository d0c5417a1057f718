import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import { EngagementEvent, Lead, Opportunity, WebhookEndpoint } from '../db/entities';
import { nextId, reserveIds } from '../db/id-blocks';
import { scoped, type TenantScope } from '../db/scoped-repository';
import { arrayParam, insertManyColumns, metadataOf, selectList } from '../db/sql';
import { createTenant } from '../domain/tenants';

// pg's own conversion of a parameter (untyped: pg/lib/utils has no declarations).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };

/**
 * The hand-written statements (db/sql.ts) must give back exactly what TypeORM's own reads give:
 * same types (numbers, dates, bigints as strings, jsonb), same defaults, no truncation.
 */
let db: DataSource;
let scope: TenantScope;

beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 3 });
  const { tenant } = await createTenant(db, { name: 'SQL helpers', plan: 'enterprise' });
  scope = { tenantId: tenant.id, environment: 'live' };
});
afterAll(() => db.destroy());

const typeormRead = <T extends object>(entity: new () => T, id: string) =>
  db.getRepository(entity).findOneByOrFail({ id } as never) as Promise<T>;

describe('statements built from entity metadata', () => {
  it('insert returns the row as TypeORM reads it: defaults, char(n), numeric through its transformer, jsonb, nulls', async () => {
    const opportunities = scoped(db.manager, Opportunity, scope);
    const inserted = await opportunities.insert({ name: 'Deal', value: 1234.5, currency: 'EUR', stageId: '1', stage: 'qualified' });
    expect(inserted).toBeInstanceOf(Opportunity);
    expect(inserted).toEqual(await typeormRead(Opportunity, inserted.id));
    expect(inserted).toMatchObject({ currency: 'EUR', value: 1234.5, status: 'open', probability: 0, leadId: null, closedAt: null });

    const leads = scoped(db.manager, Lead, scope);
    const lead = await leads.insert({
      email: 'a@example.com',
      emailNormalized: 'a@example.com',
      firstName: 'A',
      lastName: 'B',
      customFields: { plan: 'pro', seats: 3, nested: { ok: true } },
    });
    expect(lead).toEqual(await typeormRead(Lead, lead.id));
    expect(lead).toMatchObject({ score: 0, source: 'api', status: 'new', phone: null, customFields: { nested: { ok: true } } });
    expect(lead.createdAt).toBeInstanceOf(Date);
  });

  it('selectList names every column, or only the properties asked for, and refuses a property that is no column', () => {
    const meta = metadataOf(db.manager, WebhookEndpoint);
    expect(selectList(meta, 'w', 'x_').split(', ')).toHaveLength(meta.columns.filter((c) => c.isSelect).length);
    expect(selectList(meta, 'w', 'x_', ['id', 'url'])).toBe('w."id" AS "x_id", w."url" AS "x_url"');
    expect(() => selectList(meta, 'w', 'x_', ['id', 'nope'])).toThrow('selectList: nope not columns of webhook_endpoints');
  });

  it('a value longer than its column is an error, never silently cut', async () => {
    await expect(
      scoped(db.manager, Opportunity, scope).insert({ name: 'Deal', value: 1, currency: 'EURO', stageId: '1', stage: 'qualified' }),
    ).rejects.toThrow(/too long/);
  });

  it('findById and findByIdForUpdate read like TypeORM and only within the scope', async () => {
    const leads = scoped(db.manager, Lead, scope);
    const lead = await leads.insert({ email: 'c@example.com', emailNormalized: 'c@example.com', firstName: 'C', lastName: 'D' });
    expect(await leads.findById(lead.id)).toEqual(await typeormRead(Lead, lead.id));
    await db.transaction(async (m) => expect(await scoped(m, Lead, scope).findByIdForUpdate(lead.id)).toEqual(lead));
    expect(await scoped(db.manager, Lead, { ...scope, environment: 'sandbox' }).findById(lead.id)).toBeNull();
    expect(
      await scoped(db.manager, Lead, { tenantId: String(Number(scope.tenantId) + 1000), environment: 'live' }).findById(lead.id),
    ).toBeNull();
  });

  it("save writes the entity in one UPDATE that ends as TypeORM's save would: types kept, the update date moved only by a change", async () => {
    const opportunities = scoped(db.manager, Opportunity, scope);
    const deal = await opportunities.insert({ name: 'Deal', value: 10, currency: 'EUR', stageId: '1', stage: 'qualified' });
    // Microseconds TypeORM cannot hold in a Date: an untouched timestamp keeps them.
    await db.query(
      `UPDATE opportunities SET closed_at = '2026-01-02 03:04:05.678901+00', updated_at = updated_at - interval '1 hour' WHERE id = $1`,
      [deal.id],
    );
    const before = (await opportunities.findById(deal.id)) as Opportunity;
    const hourAgo = before.updatedAt.getTime();

    const unchanged = await opportunities.save(before);
    expect(unchanged.updatedAt).toEqual(before.updatedAt);
    const [{ closed_at: kept }] = await db.query(`SELECT closed_at::text FROM opportunities WHERE id = $1`, [deal.id]);
    expect(kept).toBe('2026-01-02 03:04:05.678901+00');

    const saved = await opportunities.save(Object.assign(before, { name: 'Renamed', value: 1234.56, currency: 'USD', probability: 40 }));
    expect(saved.updatedAt.getTime()).toBeGreaterThan(hourAgo + 30 * 60_000);
    expect(await typeormRead(Opportunity, deal.id)).toEqual(saved);
    expect(saved).toMatchObject({ name: 'Renamed', value: 1234.56, currency: 'USD', probability: 40, createdAt: deal.createdAt });

    const leads = scoped(db.manager, Lead, scope);
    const lead = await leads.insert({ email: 'e@example.com', emailNormalized: 'e@example.com', firstName: 'E', lastName: 'F' });
    lead.customFields = { plan: 'pro', quote: 'O"Brien', nested: { ok: true } };
    lead.phone = null;
    lead.convertedAt = new Date('2026-03-04T05:06:07.089Z');
    await leads.save(lead);
    expect(await typeormRead(Lead, lead.id)).toEqual(lead);
    await expect(leads.save(Object.assign(lead, { firstName: 'x'.repeat(101) }))).rejects.toThrow(/too long/);

    const endpoints = scoped(db.manager, WebhookEndpoint, scope);
    const endpoint = await endpoints.insert({ url: 'https://example.com/hook', events: ['*'], secret: 'whsec_x' });
    endpoint.events = ['lead.created', 'a "quoted", {braced} \\ event'];
    await endpoints.save(endpoint);
    expect(await typeormRead(WebhookEndpoint, endpoint.id)).toEqual(endpoint);
  });

  it("save changes only the scope's row, and a row deleted since it was read is not_found, not inserted again", async () => {
    const leads = scoped(db.manager, Lead, scope);
    const lead = await leads.insert({ email: 'g@example.com', emailNormalized: 'g@example.com', firstName: 'G', lastName: 'H' });
    const sandbox = scoped(db.manager, Lead, { ...scope, environment: 'sandbox' });
    const other = scoped(db.manager, Lead, { tenantId: String(Number(scope.tenantId) + 1000), environment: 'live' });
    await expect(sandbox.save({ ...lead, firstName: 'Sandbox' } as Lead)).rejects.toMatchObject({ code: 'not_found' });
    await expect(other.save({ ...lead, firstName: 'Other' } as Lead)).rejects.toMatchObject({ code: 'not_found' });
    expect((await typeormRead(Lead, lead.id)).firstName).toBe('G');

    await leads.deleteById(lead.id);
    await expect(leads.save(Object.assign(lead, { firstName: 'Back' }))).rejects.toMatchObject({
      code: 'not_found',
      message: 'Lead not found',
    });
    expect(await leads.findById(lead.id)).toBeNull();
  });

  it('insertMany writes rows of one shape with one unnest statement, in order, and falls back for mixed shapes', async () => {
    const events = scoped(db.manager, EngagementEvent, scope);
    const at = new Date('2026-01-02T03:04:05.678Z');
    const rows = [1, 2, 3].map((n) => ({
      type: 'email_open' as const,
      leadId: String(n),
      occurredAt: at,
      machine: n === 2,
      details: { n },
    }));
    expect(insertManyColumns(metadataOf(db.manager, EngagementEvent), rows)).not.toBeNull();
    const written = await events.insertMany(rows);
    expect(written.map((e) => e.details)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    for (const e of written) expect(e).toEqual(await typeormRead(EngagementEvent, e.id));
    expect(written[0].occurredAt).toEqual(at);

    const mixed = [{ ...rows[0] }, { type: 'link_click' as const, leadId: '4', occurredAt: at }];
    expect(insertManyColumns(metadataOf(db.manager, EngagementEvent), mixed)).toBeNull();
    const fallback = await events.insertMany(mixed);
    expect(fallback[1]).toMatchObject({ machine: false, details: {} });
  });

  it('array parameters are written as pg writes them, so any text survives the round trip', async () => {
    const tricky = ['plain', 'quo"te', 'back\\slash', 'both \\"', 'NULL', '', '{a,b}', 'tab\tand\nline', 'Zoë 😀'];
    expect(arrayParam(tricky)).toBe(prepareValue(tricky));
    // Strings without control characters take the JSON path; a backslash before a letter, a lone surrogate and control characters the loop.
    const plain = ['plain', 'quo"te', 'back\\slash', 'both \\"', 'NULL', '', '{a,b}', 'Zoë 😀', '\u2028'];
    for (const strings of [plain, ['a\\b', '\\', '\\\\n'], ['\ud800'], ['\u0001'], []]) {
      expect(arrayParam(strings)).toBe(prepareValue(strings));
    }
    expect(arrayParam([1, null, 'x', undefined])).toBe(prepareValue([1, null, 'x', undefined]));
    const dates = [new Date('2026-01-02T03:04:05.678Z')];
    expect(arrayParam(dates)).toBe(dates); // pg converts what it alone knows how to

    const leads = scoped(db.manager, Lead, scope);
    const written = await leads.insertMany(
      tricky.map((firstName, i) => ({
        email: `tricky-${i}@example.com`,
        emailNormalized: `tricky-${i}@example.com`,
        firstName,
        lastName: 'Text',
        source: 'api',
        status: 'new',
        customFields: { note: firstName, list: [firstName, null] },
      })),
    );
    for (const [i, lead] of written.entries()) {
      expect([lead.firstName, lead.customFields]).toEqual([tricky[i], { note: tricky[i], list: [tricky[i], null] }]);
      expect(lead).toEqual(await typeormRead(Lead, lead.id));
    }
  });

  it('array columns take the per-row path (unnest would flatten them)', async () => {
    const meta = metadataOf(db.manager, WebhookEndpoint);
    expect(insertManyColumns(meta, [{ url: 'https://x.test', events: ['lead.created'], secret: 's' }])).toBeNull();
  });

  it('nextId hands out unique ids of the table sequence, also to concurrent callers', async () => {
    const ids = await Promise.all(Array.from({ length: 250 }, () => nextId(db, Lead)));
    expect(new Set(ids).size).toBe(250);
    const [{ last }] = await db.query(`SELECT last_value::text AS last FROM leads_id_seq`);
    for (const id of ids) expect(BigInt(id)).toBeLessThanOrEqual(BigInt(last));
  });

  it('nextId reserves the next block when half of one is used, so callers rarely wait for it', async () => {
    const own = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 2 });
    try {
      const reservedAt: number[] = [];
      let taken = 0;
      const query = own.query.bind(own);
      own.query = ((text: string, params?: unknown[]) => {
        if (text.includes('generate_series')) reservedAt.push(taken);
        return query(text, params);
      }) as typeof own.query;
      const ids: bigint[] = [];
      for (; taken < 2000; taken++) ids.push(BigInt(await nextId(own, Lead)));
      expect(reservedAt).toEqual([0, 501, 1501]);
      expect(new Set(ids).size).toBe(2000);
      expect(ids.every((id, i) => i === 0 || id > ids[i - 1])).toBe(true);
    } finally {
      await own.destroy();
    }
  });

  it('reserveIds draws a whole chunk from the table sequence, ascending, none twice', async () => {
    const [first, second] = await Promise.all([reserveIds(db, Lead, 5000), reserveIds(db, Lead, 5000)]);
    for (const ids of [first, second]) {
      expect(ids).toHaveLength(5000);
      expect(ids.map(BigInt)).toEqual([...ids.map(BigInt)].sort((a, b) => (a < b ? -1 : 1)));
    }
    expect(new Set([...first, ...second]).size).toBe(10_000);
    const [{ last }] = await db.query(`SELECT last_value::text AS last FROM leads_id_seq`);
    expect(BigInt(last)).toBeGreaterThanOrEqual(BigInt(second[4999]));
  });
});

describe('the embedded database (INITDB_FLAGS)', () => {
  // A server of your own (TEST_DATABASE_URL) keeps the locale it was made with.
  const embeddedOnly = process.env.TEST_DATABASE_URL ? it.skip : it;

  embeddedOnly('compares text with the builtin C.UTF-8 locale: code point order, Unicode case mapping', async () => {
    const [db0] = await db.query(
      `SELECT datlocprovider, datlocale, pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE datname = current_database()`,
    );
    expect(db0).toEqual({ datlocprovider: 'b', datlocale: 'C.UTF-8', encoding: 'UTF8' });
    const [row] = await db.query(
      `SELECT array_agg(x ORDER BY x) AS sorted, lower('ÉCOLE') AS lowered, 'élan' ILIKE 'ÉLAN' AS matched
        FROM unnest(ARRAY['b', 'a', 'B', 'é', 'z', '_']) x`,
    );
    expect(row).toEqual({ sorted: ['B', '_', 'a', 'b', 'z', 'é'], lowered: 'école', matched: true });
  });
});
