import { gzipSync } from 'node:zlib';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

/**
 * Odd input that once reached the database or a parser unchecked and answered 500. Each was found
 * by the OpenAPI fuzzer (test/reliability/schemathesis.test.ts); a client error must be a 4xx.
 */
let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

describe('odd input is a client error, never a 500', () => {
  it('answers a multipart upload without a boundary with 400', async () => {
    const res = await stack.http().post('/v1/files/upload').set(tenant.sandbox).set('Content-Type', 'multipart/form-data').send('no parts');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, message: 'Malformed multipart body' });
  });

  // PostgreSQL stores no U+0000 in text or jsonb.
  it('refuses a NUL character in a JSON body string with 422 on that field', async () => {
    const res = await stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .send(validLead({ firstName: 'Ada\u0000' }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'firstName', message: expect.stringMatching(/NUL/) }]);
  });

  it('refuses a NUL character nested in a JSON body (arrays, objects) with 422', async () => {
    const res = await stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .send(validLead({ tags: ['ok', 'bad\u0000'] }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'tags.1', message: expect.stringMatching(/NUL/) }]);
  });

  // A JSON "\ud800" escape without its pair: jsonb refuses it (it was a 500).
  it('refuses a lone surrogate in a JSON body, as a value or a key, with 422 on that field', async () => {
    const send = (body: string, path = '/v1/leads') =>
      stack.http().post(path).set(tenant.sandbox).set('Content-Type', 'application/json').send(body);
    const lead = '"email":"lone@example.com","lastName":"L"';
    const value = await send(`{${lead},"firstName":"A\\ud800b"}`);
    expect(value.status).toBe(422);
    expect(value.body.errors).toEqual([{ field: 'firstName', message: expect.stringMatching(/lone surrogate/) }]);
    const key = await send(`{${lead},"firstName":"A","customFields":{"k\\udc00":"v"}}`);
    expect(key.status).toBe(422);
    expect(key.body.errors).toEqual([{ field: 'customFields.k\uFFFD', message: expect.stringMatching(/lone surrogate/) }]);
    // A pair is one character, stored as it is.
    const pair = await send(`{${lead},"firstName":"Smile \\ud83d\\ude00"}`);
    expect([pair.status, pair.body.data?.firstName]).toEqual([201, 'Smile 😀']);
    // In a batch, the item fails alone.
    const batch = await send(
      `{"leads":[{"email":"b1@example.com","firstName":"\\udfff","lastName":"L"},{"email":"b2@example.com","firstName":"B","lastName":"L"}]}`,
      '/v1/leads/batch',
    );
    expect(batch.body.data.map((r: { status: string }) => r.status)).toEqual(['error', 'created']);
  });

  it('refuses a NUL character in a query parameter with 400', async () => {
    const res = await stack.http().get('/v1/leads?q=%00').set(tenant.sandbox);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'q', message: expect.stringMatching(/NUL/) }]);
  });

  it('refuses a date-time whose offset PostgreSQL cannot hold with 400', async () => {
    const res = await stack.http().get('/v1/audit-logs?createdTo=1767-12-31T18%3A53%3A36%2B17%3A21').set(tenant.sandbox);
    expect(res.status).toBe(400);
  });

  it('refuses year 0000 in a date with 422', async () => {
    const res = await stack.http().post('/v1/opportunities').set(tenant.sandbox).send({ name: 'Deal', expectedCloseDate: '0000-01-01' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'expectedCloseDate', message: 'Year must be 0001 or later' }]);
  });

  // The score column is an integer: a fraction reached PostgreSQL and failed there.
  it('refuses a fractional lead score with 422 in a body and 400 in a filter', async () => {
    const created = await stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .send(validLead({ score: 1.5 }));
    expect([created.status, created.body.errors?.[0]?.field]).toEqual([422, 'score']);
    const listed = await stack.http().get('/v1/leads?scoreMin=1.9').set(tenant.sandbox);
    expect([listed.status, listed.body.errors?.[0]?.field]).toEqual([400, 'scoreMin']);
  });

  // numeric(14,2) holds values below 10^12.
  it('refuses an opportunity value the money column cannot hold with 422', async () => {
    for (const value of [1e12, 999_999_999_999.9999]) {
      const res = await stack.http().post('/v1/opportunities').set(tenant.sandbox).send({ name: 'Deal', value });
      expect([res.status, res.body.errors?.[0]?.field]).toEqual([422, 'value']);
    }
  });

  it('answers a page far past the end with an empty page, not a 500', async () => {
    const res = await stack.http().get('/v1/audit-logs?page=67553221167345&limit=2').set(tenant.sandbox);
    expect([res.status, res.body.data]).toEqual([200, []]);
  });
});

const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('bad input found against a running instance answers 4xx in the envelope', () => {
  const expectEnvelope = (res: { status: number; body: Record<string, unknown> }, status: number) => {
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ success: false, status, message: expect.any(String) });
  };

  it('refuses a phone of 21 to 30 digits with 422 on phone, on create and on update', async () => {
    for (const phone of ['+' + '1'.repeat(21), '1'.repeat(30)]) {
      const created = await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead({ phone }));
      expectEnvelope(created, 422);
      expect(created.body.errors).toEqual([{ field: 'phone', message: expect.stringMatching(/20 digits/) }]);
    }
    const lead = (await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead())).body.data;
    const patched = await stack
      .http()
      .patch(`/v1/leads/${lead.id}`)
      .set(tenant.sandbox)
      .send({ phone: '+' + '9'.repeat(25) });
    expectEnvelope(patched, 422);
    expect(patched.body.errors[0].field).toBe('phone');
  });

  // The form's own validation belongs to the forms; this proves the layer below: a value the
  // column cannot hold (PostgreSQL 22001) is a 422 naming the field, whatever let it through.
  it('answers a public form submission whose values the columns cannot hold with 422 naming the field', async () => {
    const form = (
      await stack
        .http()
        .post('/v1/forms')
        .set(tenant.live)
        .send({
          name: 'Contact',
          fields: [
            { name: 'email', label: 'Email', type: 'email', required: true, mapsTo: 'email' },
            { name: 'firstName', label: 'First name', mapsTo: 'firstName' },
          ],
        })
    ).body.data;
    const longName = await stack
      .http()
      .post(form.submitPath)
      .send({ email: `long-${Date.now()}@example.com`, firstName: 'F'.repeat(101) });
    expectEnvelope(longName, 422);
    expect(longName.body.errors).toEqual([{ field: 'firstName', message: expect.any(String) }]);
    const longEmail = await stack
      .http()
      .post(form.submitPath)
      .send({ email: `${'e'.repeat(388)}@example.com` });
    expect(longEmail.status).toBe(422);
    expect(longEmail.body.errors[0].field).toBe('email');
  });

  // Concurrent installs each find no installation row to lock; the unique index settles it.
  it('answers the losers of a race on a unique key with 409 naming the field, never a 500', async () => {
    const t = await newTenant(stack.db);
    const addonId = (await stack.http().get('/v1/addons/catalog').set(t.sandbox)).body.data[0].id;
    const racing = await Promise.all(Array.from({ length: 6 }, () => stack.http().post(`/v1/addons/${addonId}/install`).set(t.sandbox)));
    const statuses = racing.map((r) => r.status);
    expect(statuses.filter((s) => s < 300)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
  });

  it('refuses JSON nested 10,000 levels with 400, on tenant and public routes', async () => {
    const onLeads = await stack.http().post('/v1/leads').set(tenant.sandbox).set('Content-Type', 'application/json').send(nested(10_000));
    expectEnvelope(onLeads, 400);
    expect(onLeads.body.errors).toEqual([{ field: 'body', message: expect.stringMatching(/levels deep/) }]);
    const onForm = await stack
      .http()
      .post('/v1/public/forms/frm_doesnotexist0000/submissions')
      .set('Content-Type', 'application/json')
      .send(nested(3_000));
    expectEnvelope(onForm, 400);
  });

  it('answers a path with broken percent-encoding with 400, without needing a key', async () => {
    const res = await stack.http().get('/v1/leads/%E0%A4%A');
    expectEnvelope(res, 400);
    expect(res.body.message).toMatch(/percent-encoding/);
  });

  it('answers a tracking path as its routes always did: bad percent-encoding 400, a trailing slash or HEAD served, the route template in the metrics', async () => {
    const broken = await stack.http().get('/v1/t/o/%E0%A4%A');
    expectEnvelope(broken, 400);
    expect(broken.body.message).toMatch(/percent-encoding/);
    // An unknown token reaches the handler: its plain-text 404, not the API's JSON one for unknown paths.
    for (const res of [await stack.http().get('/v1/t/o/not-a-token/'), await stack.http().head('/v1/t/c/not-a-token')]) {
      expect([res.status, res.headers['content-type']]).toEqual([404, 'text/plain; charset=utf-8']);
    }
    const unknownKind = await stack.http().get('/v1/t/x/not-a-token');
    expect([unknownKind.status, unknownKind.headers['content-type']]).toEqual([404, expect.stringMatching(/^application\/json/)]);
    const metrics = await stack.http().get('/metrics');
    expect(metrics.text).toMatch(/route="\/v1\/t\/o\/:token",status="404"/);
    expect(metrics.text).toMatch(/route="\/v1\/t\/c\/:token",status="404"/);
  });

  it('answers a corrupt gzip or br body with 400, and still reads a sound gzip body', async () => {
    for (const encoding of ['gzip', 'br']) {
      const res = await stack
        .http()
        .post('/v1/leads')
        .set(tenant.sandbox)
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', encoding)
        .send('this is not compressed');
      expectEnvelope(res, 400);
    }
    const sound = stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip');
    sound.write(gzipSync(JSON.stringify(validLead()))); // written as bytes: send() would serialise the Buffer
    expect((await sound).status).toBe(201);
  });

  it('answers a PATCH without a body with 400, as the document marks the body required', async () => {
    const lead = (await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead())).body.data;
    const res = await stack.http().patch(`/v1/leads/${lead.id}`).set(tenant.sandbox);
    expectEnvelope(res, 400);
    expect(res.body.errors).toEqual([{ field: 'body', message: 'Required' }]);
  });

  it('says Required for a missing enum field too, listing its values', async () => {
    const res = await stack.http().post('/v1/agents/executions').set(tenant.sandbox).send({});
    expectEnvelope(res, 422);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'agent', message: 'Required; one of "caller", "recommender"' },
        { field: 'outcome', message: 'Required; one of "success", "failure"' },
      ]),
    );
  });

  it('answers a number too large to hold, and a number past two bounds, with one error that says so', async () => {
    // JSON's 1e400 parses as Infinity, which is no fraction.
    for (const score of ['1e400', '-1e400']) {
      const res = await stack
        .http()
        .post('/v1/leads')
        .set(tenant.sandbox)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(validLead()).replace('{', `{"score":${score},`));
      expectEnvelope(res, 422);
      expect(res.body.errors).toEqual([{ field: 'score', message: 'Must be a number, not one too large to hold' }]);
    }
    const listed = await stack.http().get('/v1/leads?limit=1e400').set(tenant.sandbox);
    expect([listed.status, listed.body.errors]).toEqual([
      400,
      [{ field: 'limit', message: 'Must be a number, not one too large to hold' }],
    ]);
    // A whole number's own bound (the largest safe integer) and the field's: only the tighter one.
    for (const [score, message] of [
      [1e20, 'Must be at most 100'],
      [-1e20, 'Must be at least 0'],
    ] as const) {
      const res = await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead({ score }));
      expect(res.body.errors).toEqual([{ field: 'score', message }]);
    }
  });

  it('says in words what a value of the wrong type or outside an enum should have been', async () => {
    const res = await stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .send(validLead({ score: 'high', firstName: null, customFields: [] }));
    expectEnvelope(res, 422);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'score', message: 'Must be a number, not a string' },
        { field: 'firstName', message: 'Must be a string, not null' },
        { field: 'customFields', message: 'Must be an object, not an array' },
      ]),
    );
    const nested = await stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .send(validLead({ customFields: { tier: { level: 1 } } }));
    expect(nested.body.errors).toEqual([
      { field: 'customFields.tier', message: 'Must be a string, a number, true or false, or null, not an object' },
    ]);
    const longName = 'k'.repeat(101);
    const named = await stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .send(validLead({ customFields: { [longName]: 'x' } }));
    expect(named.body.errors).toEqual([{ field: `customFields.${longName}`, message: 'The key must be at most 100 characters long' }]);
    const when = await stack
      .http()
      .post('/v1/analytics/events')
      .set(tenant.sandbox)
      .send({ eventType: 'email_open', timestamp: 'yesterday' });
    expect(when.body.errors).toEqual([
      { field: 'timestamp', message: 'Must be an ISO 8601 date and time, such as 2026-12-02T09:30:00Z or 2026-12-02T10:30:00+01:00' },
    ]);
    const execution = await stack.http().post('/v1/agents/executions').set(tenant.sandbox).send({ agent: 'closer', outcome: true });
    expect(execution.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'agent', message: 'Must be one of "caller", "recommender"' },
        { field: 'outcome', message: 'Must be one of "success", "failure"' },
      ]),
    );
    // A value near one of the enum's names it, in a body and in a query.
    const open = await stack.http().post('/v1/analytics/events').set(tenant.sandbox).send({ eventType: 'open' });
    expect(open.body.errors).toEqual([
      {
        field: 'eventType',
        message:
          'Must be one of "email_open", "link_click", "email_reply", "email_bounce", "email_sent", "form_submission", "page_visit"; did you mean "email_open"?',
      },
    ]);
    const outcome = await stack.http().post('/v1/agents/executions').set(tenant.sandbox).send({ agent: 'Caller', outcome: 'succes' });
    expect(outcome.body.errors).toEqual([
      { field: 'agent', message: 'Must be one of "caller", "recommender"; did you mean "caller"?' },
      { field: 'outcome', message: 'Must be one of "success", "failure"; did you mean "success"?' },
    ]);
  });

  it("names the sort a value in another API's style probably meant", async () => {
    const wanted = 'Must be one of createdAt, updatedAt, score, email, lastName followed by :asc or :desc';
    const said = async (sort: string) =>
      (
        await stack
          .http()
          .get(`/v1/leads?sort=${encodeURIComponent(sort)}`)
          .set(tenant.sandbox)
      ).body.errors[0].message;
    expect(await said('created_at:DESC')).toBe(`${wanted}; did you mean createdAt:desc?`);
    expect(await said('-score')).toBe(`${wanted}; did you mean score:desc?`);
    expect(await said('lastName asc')).toBe(`${wanted}; did you mean lastName:asc?`);
    expect(await said('createdAt')).toBe(`${wanted}; did you mean createdAt:asc or createdAt:desc?`);
    expect(await said('colour:asc')).toBe(wanted);
  });

  it('says in words which bound a number, a text or a list broke', async () => {
    const query = await stack.http().get('/v1/leads?page=0&limit=1000').set(tenant.sandbox);
    expectEnvelope(query, 400);
    expect(query.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'page', message: 'Must be at least 1' },
        { field: 'limit', message: 'Must be at most 100' },
      ]),
    );
    const campaign = (await stack.http().post('/v1/campaigns').set(tenant.sandbox).send({ name: 'Bounds' })).body.data;
    const empty = await stack.http().post(`/v1/campaigns/${campaign.id}/enrollments`).set(tenant.sandbox).send({ leadIds: [] });
    expectEnvelope(empty, 422);
    expect(empty.body.errors).toEqual([{ field: 'leadIds', message: 'Must have at least 1 item' }]);
  });

  it("refuses another tenant's user as a lead's assignedTo with 422, on create and on update", async () => {
    const other = await newTenant(stack.db);
    const otherUser = (await stack.http().get('/v1/users').set(other.sandbox)).body.data[0].id;
    const created = await stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .send(validLead({ assignedTo: otherUser }));
    expectEnvelope(created, 422);
    expect(created.body.errors).toEqual([{ field: 'assignedTo', message: 'User not found' }]);
    const ownUser = (await stack.http().get('/v1/users').set(tenant.sandbox)).body.data[0].id;
    const lead = (
      await stack
        .http()
        .post('/v1/leads')
        .set(tenant.sandbox)
        .send(validLead({ assignedTo: ownUser }))
    ).body.data;
    expect(lead.assignedTo).toBe(ownUser);
    const patched = await stack.http().patch(`/v1/leads/${lead.id}`).set(tenant.sandbox).send({ assignedTo: otherUser });
    expectEnvelope(patched, 422);
    expect(patched.body.errors[0].field).toBe('assignedTo');
  });

  describe('uploads are checked by content, not only by the declared type', () => {
    const upload = (content: Buffer | string, filename: string, contentType: string) =>
      stack.http().post('/v1/files/upload').set(tenant.sandbox).attach('file', Buffer.from(content), { filename, contentType });

    it('refuses an HTML page declared as application/pdf or image/png with 422 on file', async () => {
      for (const contentType of ['application/pdf', 'image/png']) {
        const res = await upload('<html><script>alert(1)</script></html>', 'report.pdf', contentType);
        expectEnvelope(res, 422);
        expect(res.body.errors).toEqual([{ field: 'file', message: expect.stringContaining(`not a ${contentType} file`) }]);
      }
    });

    it('stores a real PDF and PNG under their types', async () => {
      const pdf = await upload('%PDF-1.7\n%%EOF\n', 'deck.pdf', 'application/pdf');
      expect([pdf.status, pdf.body.data?.contentType]).toEqual([201, 'application/pdf']);
      const png = await upload(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]), 'dot.png', 'image/png');
      expect([png.status, png.body.data?.contentType]).toEqual([201, 'image/png']);
    });

    it('accepts application/octet-stream and ordinary binary types, served as attachments with nosniff', async () => {
      const bytes = await upload(Buffer.from([0, 1, 2, 3, 254, 255]), 'blob.bin', 'application/octet-stream');
      expect([bytes.status, bytes.body.data?.contentType]).toEqual([201, 'application/octet-stream']);
      const zip = await upload(Buffer.from('PK\x03\x04rest-of-archive', 'latin1'), 'bundle.zip', 'application/zip');
      expect(zip.status).toBe(201);
      // HTML inside an octet-stream is only ever downloaded: the browser is told not to sniff it.
      const page = await upload('<html><script>alert(1)</script></html>', 'page.bin', 'application/octet-stream');
      const served = await stack.http().get(`/v1/files/${page.body.data.id}/content`).set(tenant.sandbox).buffer(true);
      expect(served.headers['content-type']).toMatch(/^application\/octet-stream/);
      expect(served.headers['content-disposition']).toMatch(/^attachment;/);
      expect(served.headers['x-content-type-options']).toBe('nosniff');
    });

    it('still refuses types a browser would run or render (HTML, SVG, JavaScript) with 415', async () => {
      for (const contentType of ['text/html', 'image/svg+xml', 'text/javascript']) {
        const res = await upload('<svg onload="alert(1)"/>', 'x', contentType);
        expectEnvelope(res, 415);
      }
    });
  });
});
