import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const search = (t: TestTenant, q: string, headers = t.sandbox) => stack.http().get(`/v1/search?${q}`).set(headers);
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((d) => d.id);
const newLead = async (t: TestTenant, fields: Record<string, unknown>) =>
  (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead(fields)).expect(201)).body.data;

describe('search', () => {
  it('indexes leads and partners on create, update and delete, ranking title matches first', async () => {
    const t = await newTenant(stack.db);
    const ada = await newLead(t, { firstName: 'Ada', lastName: 'Lovelace' });
    const partner = (
      await stack
        .http()
        .post('/v1/partners')
        .set(t.sandbox)
        .send({ email: 'charles@engines.example', firstName: 'Charles', lastName: 'Babbage', company: 'Lovelace Analytics' })
    ).body.data;
    const opp = (await stack.http().post('/v1/opportunities').set(t.sandbox).send({ name: 'Big deal', value: 1 }).expect(201)).body.data.id;
    await stack
      .http()
      .post('/v1/search/index')
      .set(t.sandbox)
      .send({ type: 'opportunity', id: opp, data: { name: 'Big deal', notes: 'lovelace' } });
    const found = await search(t, 'q=lovelace');
    expect(found.status).toBe(200);
    expect(found.body.data.map((d: { type: string }) => d.type).sort()).toEqual(['lead', 'opportunity', 'partner']);
    // a match in the name (weight A) outranks one in the notes only (weight B)
    expect(found.body.data[2]).toMatchObject({ type: 'opportunity', id: opp });
    expect(found.body.data[0].rank).toBeGreaterThan(found.body.data[2].rank);
    expect(found.body.data.find((d: { id: string }) => d.id === ada.id).data).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
    expect(ids(await search(t, 'q=lovel&type=partner'))).toEqual([partner.id]);
    expect(ids(await search(t, 'q=engines'))).toEqual([partner.id]);

    await stack.http().patch(`/v1/leads/${ada.id}`).set(t.sandbox).send({ lastName: 'King' });
    expect(ids(await search(t, 'q=lovelace')).sort()).toEqual([partner.id, opp].sort());
    expect(ids(await search(t, 'q=ada king'))).toEqual([ada.id]);
    await stack.http().delete(`/v1/leads/${ada.id}`).set(t.sandbox);
    expect(ids(await search(t, 'q=king'))).toEqual([]);
  });

  it('keeps each word of a document once in its vector: the name-like fields at weight A, the rest at B', async () => {
    const t = await newTenant(stack.db);
    const lead = (
      await stack
        .http()
        .post('/v1/leads')
        .set(t.sandbox)
        .send({ email: 'ada@engines.example', firstName: 'Ada', lastName: 'Lovelace', phone: '+14155550123' })
        .expect(201)
    ).body.data;
    const vector = async () => {
      const [row] = await stack.db.query(`SELECT tsv::text AS tsv FROM search_documents WHERE doc_id = $1`, [lead.id]);
      return Object.fromEntries(
        (row.tsv as string).split(' ').map((lexeme) => {
          const [word, positions] = lexeme.split(/:(?=[^:]*$)/);
          return [word.replace(/^'|'$/g, ''), positions.replace(/\d+/g, '').split(',').sort().join('')];
        }),
      );
    };
    // The email counts as its parts too; the title's words carry no B positions of a repeated body.
    // The phone is also its key: `#` and its digits reversed, which only a phone query looks for.
    expect(await vector()).toEqual({
      'ada@engines.example': 'A',
      ada: 'AA',
      'engines.example': 'A',
      lovelace: 'A',
      '+14155550123': 'B',
      new: 'B',
      api: 'B',
      '#32105555141': 'A',
    });
    // Recomputed by PostgreSQL when the document is replaced.
    await stack.http().patch(`/v1/leads/${lead.id}`).set(t.sandbox).send({ lastName: 'King' }).expect(200);
    expect(await vector()).toMatchObject({ king: 'A' });
    expect(await vector()).not.toHaveProperty('lovelace');
  });

  it('indexes posted documents, replacing the previous one for the same type and id', async () => {
    const t = await newTenant(stack.db);
    const opp = (await stack.http().post('/v1/opportunities').set(t.sandbox).send({ name: 'Quantum deal', value: 1 }).expect(201)).body.data
      .id;
    const res = await stack
      .http()
      .post('/v1/search/index')
      .set(t.sandbox)
      .send({ type: 'opportunity', id: opp, data: { name: 'Quantum deal' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['id', 'indexedAt', 'type']);
    expect(res.body.data).toMatchObject({ type: 'opportunity', id: opp });
    await stack
      .http()
      .post('/v1/search/index')
      .set(t.sandbox)
      .send({ type: 'opportunity', id: opp, data: { name: 'Photon deal' } });
    expect(ids(await search(t, 'q=quantum'))).toEqual([]);
    expect((await search(t, 'q=photon')).body.data).toMatchObject([{ type: 'opportunity', id: opp, data: { name: 'Photon deal' } }]);
  });

  it('validates documents: type, an ID of that type, and a record of the caller', async () => {
    const t = await newTenant(stack.db);
    const other = await newTenant(stack.db);
    const foreign = (await stack.http().post('/v1/leads').set(other.sandbox).send(validLead())).body.data;
    const post = (body: object) => stack.http().post('/v1/search/index').set(t.sandbox).send(body);
    expect((await post({ type: 'lead', id: foreign.id, data: {} })).body.errors).toEqual([{ field: 'id', message: 'Lead not found' }]);
    expect((await post({ type: 'partner', id: foreign.id, data: {} })).body.errors).toEqual([
      { field: 'id', message: 'Must be a valid partner ID' },
    ]);
    const foreignDeal = (await stack.http().post('/v1/opportunities').set(other.sandbox).send({ name: 'Theirs', value: 1 })).body.data;
    expect((await post({ type: 'opportunity', id: foreignDeal.id, data: { name: 'x' } })).body.errors).toEqual([
      { field: 'id', message: 'Opportunity not found' },
    ]);
    const bad = await post({ type: 'campaign', id: 'x' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['data', 'type']);
  });

  it('finds a lead by its whole email, its domain or a dotted name, as the documents were parsed', async () => {
    const t = await newTenant(stack.db);
    const lead = await newLead(t, { email: 'li.wei@example.cn' });
    for (const q of ['li.wei@example.cn', 'LI.WEI@example.cn', 'li.wei@exa', 'example.cn', 'li.wei', 'example']) {
      expect([q, ids(await search(t, `q=${encodeURIComponent(q)}`))]).toEqual([q, [lead.id]]);
    }
    // Quotes and backslashes are words' neighbours, not query syntax.
    for (const q of ["li.wei' | x", 'li\\wei', "o'brien:*"]) expect((await search(t, `q=${encodeURIComponent(q)}`)).status).toBe(200);
  });

  it('forgets a deleted deal', async () => {
    const t = await newTenant(stack.db);
    const opp = (await stack.http().post('/v1/opportunities').set(t.sandbox).send({ name: 'Zanzibar', value: 1 }).expect(201)).body.data.id;
    await stack
      .http()
      .post('/v1/search/index')
      .set(t.sandbox)
      .send({ type: 'opportunity', id: opp, data: { name: 'Zanzibar' } })
      .expect(200);
    expect(ids(await search(t, 'q=zanzibar'))).toEqual([opp]);
    await stack.http().delete(`/v1/opportunities/${opp}`).set(t.sandbox).expect(200);
    expect(ids(await search(t, 'q=zanzibar'))).toEqual([]);
  });

  it('finds a lead by its phone number, with or without country code, trunk zero or punctuation, and only in its own scope', async () => {
    const t = await newTenant(stack.db);
    const other = await newTenant(stack.db);
    const london = await newLead(t, { lastName: 'London', phone: '+44 20 7946 0958' });
    const neighbour = await newLead(t, { lastName: 'Neighbour', phone: '+44 20 7946 0959' });
    const national = await newLead(t, { lastName: 'National', phone: '020 7946 0960' });
    const theirs = await newLead(other, { lastName: 'Theirs', phone: '+44 20 7946 0958' });
    const found = async (q: string, tenant = t) => ids(await search(tenant, `q=${encodeURIComponent(q)}`));

    for (const q of ['2079460958', '442079460958', '+442079460958', '+44 20 7946 0958', '020 7946 0958', '(020) 7946-0958']) {
      expect([q, await found(q)]).toEqual([q, [london.id]]);
    }
    for (const q of ['0044 20 7946 0958', '+44 (0)20 7946 0958', '79460958']) expect([q, await found(q)]).toEqual([q, [london.id]]);
    // A lead whose phone has no country code is found by the number with one (the query ends with it).
    expect(await found('+44 20 7946 0960')).toEqual([national.id]);
    expect(await found('2079460959')).toEqual([neighbour.id]);
    // Another number, or too few digits to compare by their end, finds nothing.
    for (const q of ['2079460957', '+44 20 7946 0961', '460958']) expect([q, await found(q)]).toEqual([q, []]);
    // A number among words: both must match, the number as a phone (or as words).
    for (const q of ['London 020 7946 0958', 'london +442079460958', '2079460958 Lond'])
      expect([q, await found(q)]).toEqual([q, [london.id]]);
    for (const q of ['Neighbour 2079460958', 'London 2079460959', 'Nobody 020 7946 0958']) expect([q, await found(q)]).toEqual([q, []]);
    // The other tenant's lead with the same phone is theirs only.
    expect(await found('020 7946 0958', other)).toEqual([theirs.id]);
    expect(ids(await search(t, 'q=2079460958', t.live))).toEqual([]);
    // A posted document's phone is looked up the same way.
    const opp = (await stack.http().post('/v1/opportunities').set(t.sandbox).send({ name: 'Call back', value: 1 }).expect(201)).body.data
      .id;
    await stack
      .http()
      .post('/v1/search/index')
      .set(t.sandbox)
      .send({ type: 'opportunity', id: opp, data: { name: 'Call back', phone: '+1 (415) 555-0100' } })
      .expect(200);
    expect(await found('415 555 0100')).toEqual([opp]);
  });

  it('ignores accents in documents and in queries', async () => {
    const t = await newTenant(stack.db);
    const jose = await newLead(t, { firstName: 'José', lastName: 'Müller' });
    const francois = await newLead(t, { firstName: 'Francois', lastName: 'Lefevre-Straße' });
    const found = async (q: string) => ids(await search(t, `q=${encodeURIComponent(q)}`));

    for (const q of ['jose', 'Jose', 'JOSÉ', 'muller', 'Mül', 'jose muller', 'José Müller'])
      expect([q, await found(q)]).toEqual([q, [jose.id]]);
    for (const q of ['François', 'Lefèvre', 'strasse', 'lefevre-straße']) expect([q, await found(q)]).toEqual([q, [francois.id]]);
    for (const q of ['Josh', 'Miller', 'Françoise']) expect([q, await found(q)]).toEqual([q, []]);
    const partner = (
      await stack
        .http()
        .post('/v1/partners')
        .set(t.sandbox)
        .send({ email: 'g@engines.example', firstName: 'Günther', lastName: 'Ødegård' })
        .expect(201)
    ).body.data;
    expect(await found('gunther odegard')).toEqual([partner.id]);
  });

  it('finds a German name by each of its spellings: Müller, Mueller and Muller find each other, as ä/ae, ö/oe and ß/ss do', async () => {
    const t = await newTenant(stack.db);
    const umlaut = await newLead(t, { firstName: 'Jürgen', lastName: 'Müller' });
    const digraph = await newLead(t, { firstName: 'Juergen', lastName: 'Mueller' });
    const plain = await newLead(t, { firstName: 'Jurgen', lastName: 'Muller' });
    await newLead(t, { firstName: 'Jurgen', lastName: 'Miller' });
    const found = async (q: string) => ids(await search(t, `q=${encodeURIComponent(q)}`)).sort();

    const everySpelling = [umlaut.id, digraph.id, plain.id].sort();
    for (const q of [
      'Müller',
      'Mueller',
      'Muller',
      'MÜLLER',
      'MUELLER',
      'müll',
      'mull',
      'Jürgen Mueller',
      'juergen muller',
      'Jurgen Müller',
    ])
      expect([q, await found(q)]).toEqual([q, everySpelling]);
    // A prefix of one spelling is no prefix of another: Muel is where Müller and Mueller agree.
    expect(await found('Muel')).toEqual([umlaut.id, digraph.id].sort());

    const partner = (
      await stack
        .http()
        .post('/v1/partners')
        .set(t.sandbox)
        .send({ email: 'k@schroeder.example', firstName: 'Käthe', lastName: 'Schröder-Weiß', company: 'Größe' })
        .expect(201)
    ).body.data;
    for (const q of ['Kaethe Schroeder', 'kathe schroder', 'Schroeder-Weiss', 'weiss', 'Grösse', 'groesse', 'Kathe Große'])
      expect([q, await found(q)]).toEqual([q, [partner.id]]);
  });

  it('looks for the plain-vowel spelling of ae, oe and ue as a whole word only: Joe finds Jo, not every John', async () => {
    const t = await newTenant(stack.db);
    const joe = await newLead(t, { firstName: 'Joe', lastName: 'Zander' });
    const jo = await newLead(t, { firstName: 'Jo', lastName: 'Zander' });
    await newLead(t, { firstName: 'John', lastName: 'Zander' });
    const found = async (q: string) => ids(await search(t, `q=${encodeURIComponent(q)}`)).sort();

    expect(await found('joe zander')).toEqual([joe.id, jo.id].sort());
    expect(await found('jo zander')).toHaveLength(3);
    // The spelling as written ranks first.
    expect((await search(t, `q=${encodeURIComponent('joe zander')}`)).body.data[0].id).toBe(joe.id);
  });

  it("finds a lead by its custom fields' values, not their names, as create, batch and update write them", async () => {
    const t = await newTenant(stack.db);
    const other = await newTenant(stack.db);
    const customFields = { company_size: 'Enterprise', industry: 'Fintech', seats: 250, note: null };
    const created = await newLead(t, { customFields });
    const batched = (
      await stack
        .http()
        .post('/v1/leads/batch')
        .set(t.sandbox)
        .send({ leads: [validLead({ customFields: { industry: 'Agritech', region: 'Zürich' } })] })
        .expect(200)
    ).body.data[0].id;
    await newLead(other, { customFields: { industry: 'Fintech' } });
    const found = async (q: string) => ids(await search(t, `q=${encodeURIComponent(q)}`));

    for (const q of ['fintech', 'Enterprise Fintech', 'ada 250']) expect([q, await found(q)]).toEqual([q, [created.id]]);
    expect(await found('agritech zurich')).toEqual([batched]);
    for (const q of ['industry', 'company_size', 'healthcare']) expect([q, await found(q)]).toEqual([q, []]);
    expect((await search(t, 'q=fintech')).body.data[0].data).toMatchObject({ firstName: 'Ada', customFields });

    // An update merges custom fields; the document follows.
    await stack
      .http()
      .patch(`/v1/leads/${created.id}`)
      .set(t.sandbox)
      .send({ customFields: { industry: 'Healthcare' } })
      .expect(200);
    expect(await found('healthcare enterprise')).toEqual([created.id]);
    expect(await found('fintech')).toEqual([]);
  });

  it('is scoped to tenant and environment and paginates', async () => {
    const t = await newTenant(stack.db);
    for (let i = 0; i < 3; i++) await newLead(t, { lastName: `Zephyr${i}` });
    const other = await newTenant(stack.db);
    expect(ids(await search(other, 'q=zephyr0'))).toEqual([]);
    expect(ids(await search(t, 'q=zephyr0', t.live))).toEqual([]);
    const page = await search(t, 'q=ada&limit=2&page=2');
    expect(page.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, hasNext: false, hasPrev: true });
    expect(page.body.data).toHaveLength(1);
    expect((await search(t, 'q=%21%21')).body.data).toEqual([]);
    expect((await search(t, 'type=nope')).status).toBe(400);
  });
});
