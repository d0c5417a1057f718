import { decodeId, encodeId } from '../lib/ids';
import { outboxOf } from './support/events';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

const create = (body: Record<string, unknown>, headers = tenant.sandbox) => stack.http().post('/v1/leads').set(headers).send(body);
/** The IDs of `t`'s live leads GET /v1/leads?q= finds, in its order. */
const leadsMatching = async (t: TestTenant, q: string): Promise<string[]> =>
  (
    await stack
      .http()
      .get(`/v1/leads?q=${encodeURIComponent(q)}`)
      .set(t.live)
      .expect(200)
  ).body.data.map((l: { id: string }) => l.id);

/** Creates `t`'s live leads by their fields, each with an email that holds no query's letters (a random one could), and returns each ID. */
const leadsOf = (t: TestTenant) => {
  let n = 0;
  return async (lead: Record<string, unknown>): Promise<string> =>
    (await create(validLead({ email: `lead${++n}@x.example`, ...lead }), t.live)).body.data.id;
};

/** What each query of `expected` finds in `t`, beside what it should find, both sorted: one assertion shows every query that is off. */
async function foundAndExpected(t: TestTenant, expected: Record<string, string[]>) {
  const found: Record<string, string[]> = {};
  for (const q of Object.keys(expected)) found[q] = (await leadsMatching(t, q)).sort();
  return { found, expected: Object.fromEntries(Object.entries(expected).map(([q, ids]) => [q, [...ids].sort()])) };
}

describe('leads', () => {
  it('creates a lead with the spec defaults and the acting user as assignee', async () => {
    const res = await create(validLead({ email: 'Grace@Example.com', phone: '+44 20 7946 0018' }));
    expect(res.status).toBe(201);
    const lead = res.body.data;
    expect(lead).toMatchObject({
      tenantId: tenant.id,
      email: 'Grace@Example.com',
      phone: '+44 20 7946 0018',
      source: 'api',
      status: 'new',
      score: 0,
      customFields: {},
      assignedTo: encodeId('user', tenant.user.id),
    });
    expect(lead.id).toMatch(/^lea[A-Za-z0-9]{13,14}$/);
    // Omitted is the acting user; null is unassigned, as the spec's "null when unassigned" says.
    expect((await create(validLead({ assignedTo: null }))).body.data.assignedTo).toBeNull();
    const [item] = (
      await stack
        .http()
        .post('/v1/leads/batch')
        .set(tenant.sandbox)
        .send({ leads: [validLead({ assignedTo: null })] })
    ).body.data;
    expect((await stack.http().get(`/v1/leads/${item.id}`).set(tenant.sandbox)).body.data.assignedTo).toBeNull();
    expect(Object.keys(lead).sort()).toEqual(
      [
        'id',
        'tenantId',
        'email',
        'firstName',
        'lastName',
        'phone',
        'source',
        'status',
        'score',
        'assignedTo',
        'customFields',
        'partnerId',
        'unsubscribedAt',
        'bouncedAt',
        'createdAt',
        'updatedAt',
      ].sort(),
    );
  });

  it("creates a new tenant's first leads at once, while its default statuses are seeded, without a 5xx", async () => {
    const fresh = await newTenant(stack.db);
    const results = await Promise.all(Array.from({ length: 12 }, () => stack.http().post('/v1/leads').set(fresh.live).send(validLead())));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    expect(new Set(results.map((r) => r.body.data.status))).toEqual(new Set(['new']));
  });

  it('reads a lead back by its encoded ID', async () => {
    const created = (await create(validLead({ score: 55, customFields: { plan: 'pro', seats: 12 } }))).body.data;
    const res = await stack.http().get(`/v1/leads/${created.id}`).set(tenant.sandbox);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(created);
  });

  it('answers a wrong-type or garbage path ID with 404, never 500', async () => {
    for (const id of [encodeId('partner', 1), 'garbage', "lea'; DROP TABLE leads;--", 'leaAAAAAAAAAAAAA']) {
      const res = await stack
        .http()
        .get(`/v1/leads/${encodeURIComponent(id)}`)
        .set(tenant.sandbox);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, status: 404, message: 'Lead not found' });
    }
    // An ID of another type says which: its tag is no secret.
    const partner = await stack
      .http()
      .get(`/v1/leads/${encodeId('partner', 1)}`)
      .set(tenant.sandbox);
    expect(partner.body.errors).toEqual([{ field: 'id', message: 'This is a Partner ID, not a Lead ID' }]);
    const imported = await stack
      .http()
      .get(`/v1/leads/imports/${encodeId('lead', 1)}`)
      .set(tenant.sandbox);
    expect([imported.body.message, imported.body.errors]).toEqual([
      'Lead import not found',
      [{ field: 'id', message: 'This is a Lead ID, not a Lead import ID' }],
    ]);
  });

  it('answers a wrong-type body ID with a 422 field error naming the type it is', async () => {
    const res = await create(validLead({ assignedTo: encodeId('lead', 1) }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'assignedTo', message: 'Must be a valid User ID, not a Lead ID' }]);
    const garbage = await create(validLead({ assignedTo: 'usr-garbage' }));
    expect(garbage.body.errors).toEqual([{ field: 'assignedTo', message: 'Must be a valid User ID' }]);
  });

  it('names each missing required field as Required', async () => {
    const res = await create({ email: 'missing@example.com' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { field: 'firstName', message: 'Required' },
      { field: 'lastName', message: 'Required' },
    ]);
  });

  it('rejects unknown fields, bad sources and out-of-range scores', async () => {
    const res = await create(validLead({ source: 'fax', score: -1, favouriteColour: 'blue' }));
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['favouriteColour', 'score', 'source'].sort());
  });

  it('keeps tenants and environments apart: another tenant or the live key sees 404', async () => {
    const lead = (await create(validLead())).body.data;
    const other = await newTenant(stack.db);
    expect((await stack.http().get(`/v1/leads/${lead.id}`).set(other.sandbox)).status).toBe(404);
    expect((await stack.http().get(`/v1/leads/${lead.id}`).set(tenant.live)).status).toBe(404);
    expect((await stack.http().patch(`/v1/leads/${lead.id}`).set(other.sandbox).send({ score: 1 })).status).toBe(404);
    expect((await stack.http().delete(`/v1/leads/${lead.id}`).set(tenant.live)).status).toBe(404);
    const otherList = await stack.http().get('/v1/leads').set(other.sandbox);
    expect(otherList.body.data).toEqual([]);
  });

  it('paginates, filters and sorts', async () => {
    const t = await newTenant(stack.db);
    for (let i = 0; i < 5; i++) {
      await create(validLead({ score: i * 20, status: i % 2 ? 'contacted' : 'new', source: 'web', lastName: `Name${i}` }), t.live);
    }
    const page2 = await stack.http().get('/v1/leads?limit=2&page=2&sort=score:asc').set(t.live);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 5, totalPages: 3, hasNext: true, hasPrev: true });
    expect(page2.body.data.map((l: { score: number }) => l.score)).toEqual([40, 60]);
    const contacted = await stack.http().get('/v1/leads?status=contacted&scoreMin=30').set(t.live);
    expect(contacted.body.data.map((l: { score: number }) => l.score)).toEqual([60]);
    const q = await stack.http().get('/v1/leads?q=name3').set(t.live);
    expect(q.body.data).toHaveLength(1);
    const beyond = await stack.http().get('/v1/leads?page=9').set(t.live);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.pagination).toMatchObject({ total: 5, hasNext: false, hasPrev: true });
  });

  it("filters by q: a substring of the name, email or a custom field's value without case or accents, or the phone number", async () => {
    const t = await newTenant(stack.db);
    const other = await newTenant(stack.db);
    const jose = (
      await create(
        validLead({
          email: 'jm@acme.example',
          firstName: 'José',
          lastName: 'Müller',
          phone: '+44 20 7946 0958',
          customFields: { industry: 'Fintech' },
        }),
        t.live,
      )
    ).body.data.id;
    const ana = (
      await create(
        validLead({
          email: 'ana@lopez.example',
          firstName: 'Ana',
          lastName: 'Lopez',
          phone: '020 7946 0960',
          customFields: { city: 'Zürich', seats: 12 },
        }),
        t.live,
      )
    ).body.data.id;
    await create(validLead({ firstName: 'Jose', phone: '+44 20 7946 0958', customFields: { industry: 'Fintech' } }), other.live);
    const found = (q: string) => leadsMatching(t, q);

    for (const q of ['jose', 'JOSÉ MÜL', 'é m', 'acme.ex', 'fintech', 'TECH', '2079460958', '+44 (0)20 7946 0958', '79460958']) {
      expect([q, await found(q)]).toEqual([q, [jose]]);
    }
    // A phone written without its country code is found by the number with it; a custom field's accents fold too.
    for (const q of ['+44 20 7946 0960', 'zurich']) expect([q, await found(q)]).toEqual([q, [ana]]);
    // Names of custom fields, another number, and text across two fields are no match.
    for (const q of ['industry', '2079460957', 'müller jm', 'lopez zurich']) expect([q, await found(q)]).toEqual([q, []]);
    // Fewer digits are a substring of the phone as written.
    expect((await found('7946 09')).sort()).toEqual([jose, ana].sort());
  });

  it('filters by q with a phone number among words: the words a substring, the number as written or as a phone, as search looks it up', async () => {
    const t = await newTenant(stack.db);
    const anna = (await create(validLead({ firstName: 'Anna', lastName: 'Schmidt', phone: '030 1234567' }), t.live)).body.data.id;
    const otto = (await create(validLead({ firstName: 'Otto', lastName: 'Schmidt', phone: '+49 30 1234567' }), t.live)).body.data.id;
    await create(validLead({ firstName: 'Anna', lastName: 'Becker', phone: '+49 30 7654321' }), t.live);
    const found = async (q: string) => (await leadsMatching(t, q)).sort();

    for (const q of ['Anna +49 30 1234567', '+49 (30) 1234567 anna', 'anna schmidt, 030 1234567', 'Anna (030) 1234567', 'Anna 1234567'])
      expect([q, await found(q)]).toEqual([q, [anna]]);
    // The words and every number must match: another lead's number, or words no lead with the number has, find nobody.
    for (const q of ['Anna +49 30 1234568', 'Becker 030 1234567', 'Anna 030 1234567, 030 7654321'])
      expect([q, await found(q)]).toEqual([q, []]);
    expect(await found('Schmidt 30 1234567')).toEqual([anna, otto].sort());
  });

  it('filters by q with German spellings alike: Mueller finds Müller and Müller finds Mueller, in any case, custom field values too', async () => {
    const t = await newTenant(stack.db);
    const id = leadsOf(t);
    const juergen = await id({ firstName: 'Jürgen', lastName: 'Müller' });
    const hans = await id({ firstName: 'Hans', lastName: 'Mueller' });
    const koeln = await id({ firstName: 'Ada', lastName: 'Lovelace', customFields: { city: 'Köln' } });

    const both = [juergen, hans];
    const { found, expected } = await foundAndExpected(t, {
      Mueller: both,
      Müller: both,
      MÜLLER: both,
      mueller: both,
      MUELLER: both,
      müll: both,
      ueller: both,
      'Juergen Mueller': [juergen],
      'JÜRGEN MÜ': [juergen],
      uergen: [juergen],
      koeln: [koeln],
      KOELN: [koeln],
      KÖLN: [koeln],
    });
    expect(found).toEqual(expected);
  });

  it('filters by q through the stored search_text: rewritten on each change, JSON-escaped text and phone numbers too, read only where written', async () => {
    const t = await newTenant(stack.db);
    const id = leadsOf(t);
    const note = 'says "hi" \\ bye\ttab\u0001ctl';
    const ada = await id({
      firstName: 'Ada',
      lastName: 'Lovelace',
      phone: '+44 20 7946 0018',
      customFields: { note, ref: 'call 030 1234567' },
    });
    const grace = await id({ firstName: 'Gr"ace', lastName: 'Hopper' });
    await stack.http().patch(`/v1/leads/${ada}`).set(t.live).send({ lastName: 'Byrön' }).expect(200);
    // search_text holds custom values as JSON (escaped) and the name as written: both are found.
    const { found, expected } = await foundAndExpected(t, {
      byroen: [ada],
      lovelace: [],
      'says "hi"': [ada],
      '" \\ b': [ada],
      'bye\ttab': [ada],
      '\u0001ctl': [ada],
      'gr"a': [grace],
      '"': [ada, grace],
      '030 1234567': [ada],
      '+44 20 7946 0018': [ada],
    });
    expect(found).toEqual(expected);
    // search_text decides which leads are compared at all, whatever the text (a phone number's
    // digits are still compared with the phone); a lead without one (written with the trigger off,
    // as a replica writes) is compared in full.
    const setSearchText = (text: string | null) =>
      stack.db.transaction(async (m) => {
        await m.query(`SET LOCAL session_replication_role = replica`);
        await m.query(`UPDATE leads SET search_text = $2 WHERE id = $1`, [decodeId('lead', ada), text]);
      });
    await setSearchText('nothing here');
    const notHeld = await foundAndExpected(t, {
      byr: [],
      'says "hi"': [],
      '030 1234567': [],
      '+44 20 7946 0018': [ada],
      '2079460018': [ada],
    });
    expect(notHeld.found).toEqual(notHeld.expected);
    await setSearchText(null);
    const unwritten = await foundAndExpected(t, { byr: [ada], 'says "hi"': [ada], '030 1234567': [ada] });
    expect(unwritten.found).toEqual(unwritten.expected);
  });

  it('filters by q without a German spelling as before, and never folds a digraph away: Joe finds no John, Muller no Mueller', async () => {
    const t = await newTenant(stack.db);
    const id = leadsOf(t);
    const juergen = await id({ firstName: 'Jürgen', lastName: 'Müller' });
    const hans = await id({ firstName: 'Hans', lastName: 'Mueller' });
    const john = await id({ firstName: 'John', lastName: 'Smith' });
    const joe = await id({ firstName: 'Joe', lastName: 'Black' });
    const koeln = await id({ firstName: 'Ada', lastName: 'Lovelace', customFields: { city: 'Köln' } });

    const { found, expected } = await foundAndExpected(t, {
      joe: [joe],
      Jo: [john, joe],
      Muller: [juergen],
      mull: [juergen],
      Jurgen: [juergen],
      smith: [john],
      koln: [koeln],
      // Without an umlaut or a digraph, text is compared as written only, as before: Mueller's `eller`, not Müller's.
      eller: [hans],
    });
    expect(found).toEqual(expected);
  });

  it('updates and deletes a lead', async () => {
    const lead = (await create(validLead({ customFields: { a: 1 } }))).body.data;
    const patched = await stack
      .http()
      .patch(`/v1/leads/${lead.id}`)
      .set(tenant.sandbox)
      .send({ status: 'qualified', customFields: { b: 'x' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ status: 'qualified', customFields: { a: 1, b: 'x' } });
    const deleted = await stack.http().delete(`/v1/leads/${lead.id}`).set(tenant.sandbox);
    expect(deleted.status).toBe(200);
    expect((await stack.http().get(`/v1/leads/${lead.id}`).set(tenant.sandbox)).status).toBe(404);
  });

  it('patches custom fields as a JSON Merge Patch: null removes a key, and a lead holds at most 100 in all', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const hundred = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    const lead = (await create(validLead({ customFields: hundred }), t.live)).body.data;
    const patch = (customFields: Record<string, unknown>) => stack.http().patch(`/v1/leads/${lead.id}`).set(t.live).send({ customFields });

    const over = await patch({ extra: 'x' });
    expect([over.status, over.body.errors]).toEqual([
      422,
      [
        {
          field: 'customFields',
          message:
            'This patch would give the lead 101 custom fields; a lead has at most 100: remove some first (a key set to null in a PATCH of customFields removes it)',
        },
      ],
    ]);
    // Removing one makes room for another in the same patch; a null for a key the lead lacks changes nothing.
    const swapped = await patch({ k0: null, extra: 'x', never: null });
    expect(swapped.status).toBe(200);
    expect(Object.keys(swapped.body.data.customFields)).toHaveLength(100);
    expect(swapped.body.data.customFields).toMatchObject({ extra: 'x', k1: 1 });
    expect('k0' in swapped.body.data.customFields).toBe(false);
    const updates = await outboxOf(stack.db, t, 'live', ['lead.updated']);
    expect(updates.map((e) => e.data.changes)).toEqual([{ customFields: { k0: null, extra: 'x' } }]);

    // A merge that would pass the limit is refused, naming what to do.
    const other = (await create(validLead({ customFields: { a: 1, b: 2 } }), t.live)).body.data;
    const merge = await stack.http().post(`/v1/leads/${lead.id}/merge`).set(t.live).send({ duplicateId: other.id });
    expect([merge.status, merge.body.errors[0].field]).toEqual([422, 'duplicateId']);
    expect(merge.body.errors[0].message).toMatch(
      /^Taking the duplicate's custom fields would give the lead 102 custom fields; a lead has at most 100/,
    );
  });

  it('clears a phone with null, which takes the lead out of its phone cluster', async () => {
    const t = await newTenant(stack.db);
    const a = (await create(validLead({ phone: '+44 20 7946 0999' }), t.live)).body.data;
    const b = (await create(validLead({ phone: '+44 20 7946 0999' }), t.live)).body.data;
    const duplicatesOf = async (id: string) =>
      (await stack.http().get(`/v1/leads/${id}/duplicates`).set(t.live)).body.data.map((d: { lead: { id: string } }) => d.lead.id);
    expect(await duplicatesOf(a.id)).toEqual([b.id]);
    const cleared = await stack.http().patch(`/v1/leads/${b.id}`).set(t.live).send({ phone: null }).expect(200);
    expect(cleared.body.data.phone).toBeNull();
    expect(await duplicatesOf(a.id)).toEqual([]);
    expect((await create(validLead({ phone: null }), t.live)).body.data.phone).toBeNull();
  });

  it("takes statuses from the tenant's lead status definitions", async () => {
    const t = await newTenant(stack.db);
    expect((await create(validLead({ status: 'nurturing' }), t.live)).status).toBe(422);
    const custom = await stack
      .http()
      .post('/v1/config/statuses')
      .set(t.live)
      .send({ entityType: 'lead', code: 'nurturing', name: 'Nurturing', color: 'teal', sortOrder: 9 });
    expect(custom.status).toBe(201);
    expect((await create(validLead({ status: 'nurturing' }), t.live)).body.data.status).toBe('nurturing');
    expect((await create(validLead(), t.live)).body.data.status).toBe('new');
    const lead = (await create(validLead(), t.live)).body.data;
    const bad = await stack.http().patch(`/v1/leads/${lead.id}`).set(t.live).send({ status: 'won' });
    expect([bad.status, bad.body.errors[0].field]).toEqual([422, 'status']);
  });

  it('filters by when a lead last changed, for a sync that polls what changed since its last run', async () => {
    const t = await newTenant(stack.db);
    const quiet = (await create(validLead({ lastName: 'Quiet' }), t.live)).body.data;
    const changed = (await create(validLead({ lastName: 'Changed' }), t.live)).body.data;
    const since = new Date(Date.parse(changed.updatedAt) + 1).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const patched = (await stack.http().patch(`/v1/leads/${changed.id}`).set(t.live).send({ score: 50 }).expect(200)).body.data;
    const ids = async (query: string) =>
      (await stack.http().get(`/v1/leads?${query}`).set(t.live).expect(200)).body.data.map((l: { id: string }) => l.id);
    expect(await ids(`updatedFrom=${encodeURIComponent(since)}&sort=updatedAt:asc`)).toEqual([changed.id]);
    expect(await ids(`updatedTo=${encodeURIComponent(since)}`)).toEqual([quiet.id]);
    expect(await ids(`updatedFrom=${patched.updatedAt.slice(0, 10)}&sort=updatedAt:asc`)).toEqual([quiet.id, changed.id]);
    // A sync's first poll, without a time (the list adds a condition that keeps every lead, for the index).
    expect(await ids('sort=updatedAt:desc')).toEqual([changed.id, quiet.id]);
    // A window given backwards (a client's clock behind the server's) is empty, not a mistake (docs/decisions.md).
    expect(await ids(`updatedFrom=${encodeURIComponent(patched.updatedAt)}&updatedTo=${encodeURIComponent(since)}`)).toEqual([]);
    const bad = await stack.http().get('/v1/leads?updatedFrom=yesterday').set(t.live);
    expect([bad.status, bad.body.errors[0].field]).toEqual([400, 'updatedFrom']);
  });

  it('filters by custom fields', async () => {
    const t = await newTenant(stack.db);
    await create(validLead({ customFields: { plan: 'pro', seats: 10 } }), t.live);
    await create(validLead({ customFields: { plan: 'free', seats: 10 } }), t.live);
    const pro = await stack.http().get('/v1/leads?customFields.plan=pro&customFields.seats=10').set(t.live);
    expect(pro.body.data.map((l: { customFields: { plan: string } }) => l.customFields.plan)).toEqual(['pro']);
    expect((await stack.http().get('/v1/leads?customFields.seats=10').set(t.live)).body.pagination.total).toBe(2);
  });

  it('merges a duplicate into a lead, moving its opportunities and deleting it', async () => {
    const t = await newTenant(stack.db);
    const survivor = (await create(validLead({ customFields: { a: 1 } }), t.live)).body.data;
    const dup = (await create(validLead({ phone: '+1 555 0101', score: 70, customFields: { a: 2, b: 3 } }), t.live)).body.data;
    const opp = (await stack.http().post('/v1/opportunities').set(t.live).send({ name: 'Deal', leadId: dup.id })).body.data;
    const merged = await stack.http().post(`/v1/leads/${survivor.id}/merge`).set(t.live).send({ duplicateId: dup.id });
    expect(merged.status).toBe(200);
    expect(merged.body.data).toMatchObject({ id: survivor.id, phone: '+1 555 0101', score: 70, customFields: { a: 1, b: 3 } });
    expect((await stack.http().get(`/v1/leads/${dup.id}`).set(t.live)).status).toBe(404);
    expect((await stack.http().get(`/v1/opportunities/${opp.id}`).set(t.live)).body.data.leadId).toBe(survivor.id);
    const self = await stack.http().post(`/v1/leads/${survivor.id}/merge`).set(t.live).send({ duplicateId: survivor.id });
    expect(self.status).toBe(422);
  });

  it("keeps a survivor's own phone key in a merge: a phone with no key does not take the duplicate's", async () => {
    const t = await newTenant(stack.db);
    const survivor = (await create(validLead({ phone: '1 2 3' }), t.live)).body.data; // too few digits for a key
    const dup = (await create(validLead({ phone: '+1 555 0199' }), t.live)).body.data;
    const other = (await create(validLead({ phone: '+1 555 0199' }), t.live)).body.data;
    await stack.http().post(`/v1/leads/${survivor.id}/merge`).set(t.live).send({ duplicateId: dup.id }).expect(200);
    const duplicates = await stack.http().get(`/v1/leads/${other.id}/duplicates`).set(t.live).expect(200);
    expect(duplicates.body.data).toEqual([]);
  });

  it("reports every field a merge changes, takes the duplicate's conversion with its status, never a deactivated assignee", async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const user = { email: `leaver-${Date.now()}@example.com`, password: 'long enough pw', firstName: 'L', lastName: 'V', roleId: 'admin' };
    const leaver = (await stack.http().post('/v1/users').set(t.live).send(user).expect(201)).body.data;
    const survivor = (await create(validLead({ score: 10 }), t.live)).body.data;
    await stack.http().patch(`/v1/leads/${survivor.id}`).set(t.live).send({ assignedTo: null }).expect(200);
    const dup = (await create(validLead({ score: 60, assignedTo: leaver.id }), t.live)).body.data;
    await stack.http().post('/v1/opportunities/convert').set(t.live).send({ leadId: dup.id }).expect(201);
    await stack.http().delete(`/v1/users/${leaver.id}`).set(t.live).expect(200);

    const merged = await stack.http().post(`/v1/leads/${survivor.id}/merge`).set(t.live).send({ duplicateId: dup.id }).expect(200);
    expect(merged.body.data).toMatchObject({ score: 60, status: 'qualified', assignedTo: null });
    const [updated] = (await outboxOf(stack.db, t, 'live', ['lead.updated'])).filter(
      (e) => e.data.leadId === survivor.id && (e.data.changes as Record<string, unknown>).mergedLeadId,
    );
    expect(Object.keys(updated.data.changes as object).sort()).toEqual(['convertedAt', 'mergedLeadId', 'score', 'status']);
    const again = await stack.http().post('/v1/opportunities/convert').set(t.live).send({ leadId: survivor.id });
    expect(again.status).toBe(409);
  });

  it('answers two opposite merges of one pair at once with one merge and one 404 or 422, never a 500', async () => {
    const t = await newTenant(stack.db);
    for (let round = 0; round < 5; round++) {
      const [a, b] = [(await create(validLead(), t.live)).body.data, (await create(validLead(), t.live)).body.data];
      const merge = (into: string, from: string) => stack.http().post(`/v1/leads/${into}/merge`).set(t.live).send({ duplicateId: from });
      const statuses = (await Promise.all([merge(a.id, b.id), merge(b.id, a.id)])).map((r) => r.status).sort();
      expect([
        [200, 404],
        [200, 422],
      ]).toContainEqual(statuses);
    }
  });
});
