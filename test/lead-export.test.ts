import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

/** The export's rows as objects by the header's names (the test's own reading of RFC 4180). */
function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (c === '"') quoted = !quoted;
    else if (quoted || (c !== ',' && c !== '\r')) field += c;
    else if (c === ',') endField();
    else {
      endField();
      rows.push(row);
      row = [];
      i++; // the \n after \r
    }
  }
  const [header, ...body] = rows;
  return body.map((r) => Object.fromEntries(header.map((name, i) => [name, r[i]])));
}

/** The export's answer, its body as text. */
const download = (t: TestTenant, query = '', env: 'live' | 'sandbox' = 'live') =>
  stack
    .http()
    .get(`/v1/leads/export${query}`)
    .set(t[env])
    .buffer(true)
    .parse((r, done) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (chunk: string) => (text += chunk));
      r.on('end', () => done(null, text));
    });

const exported = async (t: TestTenant, query = '', env: 'live' | 'sandbox' = 'live') => {
  const res = await download(t, query, env);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(res.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="leads-${env}-\\d{4}-\\d{2}-\\d{2}\\.csv"`));
  return parseCsv(res.body as string);
};

const createBatch = (t: TestTenant, leads: unknown[]) => stack.http().post('/v1/leads/batch').set(t.live).send({ leads }).expect(200);

describe('GET /v1/leads/export', () => {
  it("streams every lead of the caller's tenant and environment, oldest first, past a page of 1,000, each once", async () => {
    const t = await newTenant(stack.db);
    const other = await newTenant(stack.db);
    const ids: string[] = [];
    for (let b = 0; b < 11; b++) {
      const res = await createBatch(
        t,
        Array.from({ length: 100 }, (_, i) => validLead({ email: `l${b * 100 + i}@example.com` })),
      );
      ids.push(...res.body.data.map((r: { id: string }) => r.id));
    }
    await stack.http().post('/v1/leads').set(t.sandbox).send(validLead()).expect(201);
    await stack.http().post('/v1/leads').set(other.live).send(validLead()).expect(201);

    const rows = await exported(t);
    expect(rows).toHaveLength(1_100);
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(rows[0]).toMatchObject({ email: 'l0@example.com', source: 'api', status: 'new', score: '0', customFields: '{}' });
    expect(await exported(t, '', 'sandbox')).toHaveLength(1);
    expect(await exported(other)).toHaveLength(1);
  });

  it("takes a list's filters, and answers a bad one with 400 in the envelope before any row", async () => {
    const t = await newTenant(stack.db);
    await createBatch(t, [
      validLead({ email: 'gold@example.com', status: 'qualified', customFields: { tier: 'gold' } }),
      validLead({ email: 'silver@example.com', status: 'contacted', customFields: { tier: 'silver' } }),
      validLead({ email: 'new@example.com' }),
    ]);
    const emails = async (query: string) => (await exported(t, query)).map((r) => r.email);
    expect(await emails('?status=qualified,contacted')).toEqual(['gold@example.com', 'silver@example.com']);
    expect(await emails('?customFields.tier=gold')).toEqual(['gold@example.com']);
    expect(await emails('?q=silver')).toEqual(['silver@example.com']);

    const bad = await stack.http().get('/v1/leads/export?status=qualifed').set(t.live);
    expect([bad.status, bad.headers['content-type'], bad.body.errors[0].field]).toEqual([400, 'application/json; charset=utf-8', 'status']);
    const paged = await stack.http().get('/v1/leads/export?limit=10').set(t.live);
    expect([paged.status, paged.body.errors[0].field]).toEqual([400, 'limit']);
  });

  it('guards what a spreadsheet would run, and an import of the file reads every value back as it was', async () => {
    const t = await newTenant(stack.db);
    const values = { firstName: '=HYPERLINK("http://evil.example","Ada")', lastName: '-2+3x', phone: '+44 20 7946 0018' };
    await stack
      .http()
      .post('/v1/leads')
      .set(t.live)
      .send(validLead({ email: 'formula@example.com', ...values, customFields: { note: '@SUM(1)', quote: 'a, "b"' } }))
      .expect(201);
    const file = await download(t);
    const text = file.body as string;
    expect(text).toContain(`"'=HYPERLINK(""http://evil.example"",""Ada"")",'-2+3x,+44 20 7946 0018,`);

    const target = await newTenant(stack.db);
    const upload = await stack
      .http()
      .post('/v1/files/upload')
      .set(target.live)
      .attach('file', Buffer.from(text), { filename: 'leads.csv', contentType: 'text/csv' })
      .expect(201);
    const mapping = { email: 'email', firstName: 'firstName', lastName: 'lastName', phone: 'phone' };
    const started = await stack
      .http()
      .post('/v1/leads/imports')
      .set(target.live)
      .send({ fileId: upload.body.data.id, format: 'csv', mapping, onExisting: 'skip' })
      .expect(202);
    await waitUntil(
      async () => (await stack.http().get(`/v1/leads/imports/${started.body.data.id}`).set(target.live)).body.data.status === 'completed',
      'the import to complete',
    );
    const [lead] = (await stack.http().get('/v1/leads').set(target.live).expect(200)).body.data;
    expect(lead).toMatchObject({ email: 'formula@example.com', ...values });
  });
});
