import { newTenant, startStack, validLead, type TestStack } from './support/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

describe('OpenAPI document', () => {
  it('is served at /v1/openapi.json as OpenAPI 3.1 with every /v1 route', async () => {
    const res = await stack.http().get('/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/leads', '/v1/leads/{id}', '/v1/leads/{id}/duplicates']));
    const create = doc.paths['/v1/leads'].post;
    expect(create.security).toEqual([{ ApiKeyAuth: [] }, { BearerAuth: [], TenantId: [] }]);
    expect(create.responses['422'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorEnvelope');
    const body = doc.components.schemas.LeadCreate;
    expect(body.required).toEqual(expect.arrayContaining(['email', 'firstName', 'lastName']));
    expect(body.properties.score).toMatchObject({ minimum: 0, maximum: 100 });
    const list = doc.paths['/v1/leads'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['page', 'limit', 'sort', 'status', 'q']));
  });

  it('states the rules the server enforces: ID patterns, email format, number ranges, required bodies, cross-field rules, references', async () => {
    const doc = (await stack.http().get('/v1/openapi.json')).body;
    const lead = doc.components.schemas.LeadCreate.properties;
    expect(lead.assignedTo.anyOf?.[0] ?? lead.assignedTo).toMatchObject({ pattern: '^usr[A-Za-z0-9]{13,14}$' });
    expect(lead.email).toMatchObject({ format: 'email', maxLength: 254 });
    const phone = new RegExp((lead.phone.anyOf?.[0] ?? lead.phone).pattern);
    expect(['+44 20 7946 0018', '1'.repeat(20)].every((p) => phone.test(p))).toBe(true);
    expect(phone.test('1'.repeat(21))).toBe(false);
    const idParam = doc.paths['/v1/leads/{id}'].get.parameters.find((p: { name: string }) => p.name === 'id');
    expect(idParam.schema.pattern).toBe('^lea[A-Za-z0-9]{13,14}$');
    const [asRange, asCount] = doc.components.schemas.GenerateSequenceRequest.properties.emailCount.anyOf;
    expect(asCount).toMatchObject({ type: 'integer', minimum: 1, maximum: 10 });
    const emailCount = new RegExp(asRange.pattern);
    expect(['1', '10', '3-5'].map((v) => emailCount.test(v))).toEqual([true, true, true]);
    expect(['0', '11', '3-12'].map((v) => emailCount.test(v))).toEqual([false, false, false]);
    expect(doc.components.schemas.ApiKeyCreate.properties.expiresAt.description).toMatch(/future/);
    expect(doc.components.schemas.WorkflowDefinition.description).toMatch(/exactly one node has type trigger/);
    expect(doc.paths['/v1/leads/{id}'].patch.requestBody.required).toBe(true);
    // Date-times: what PostgreSQL stores (no year 0000, offsets within ±15:59), as the server checks it.
    const deliveries = doc.paths['/v1/integrations/webhooks/{id}/deliveries'].get.parameters;
    // A range's bound takes a date alone too (that whole day): the second of its two forms.
    const [moment, day] = deliveries.find((p: { name: string }) => p.name === 'createdFrom').schema.anyOf;
    expect(['2030-01-01', '0000-01-01'].map((v) => new RegExp(day.pattern).test(v))).toEqual([true, false]);
    const createdFrom = new RegExp(moment.pattern);
    expect(['2030-01-01T09:00:00Z', '2000-02-29T09:00:00+15:59', '0001-01-01T00:00:00-03:30'].map((v) => createdFrom.test(v))).toEqual([
      true,
      true,
      true,
    ]);
    expect(['2030-01-01T09:00:00+16:00', '0000-01-01T00:00:00Z', '0000-02-29T00:00:00Z'].map((v) => createdFrom.test(v))).toEqual([
      false,
      false,
      false,
    ]);
    // Either of two fields.
    expect(doc.components.schemas.InboundEvent.anyOf).toEqual([{ required: ['messageId'] }, { required: ['email'] }]);
    // Text that is trimmed must not be blank: a whitespace-only name is invalid in the document too.
    const nonBlank = new RegExp(lead.firstName.pattern);
    expect([' Ada ', 'x'].every((v) => nonBlank.test(v))).toBe(true);
    expect([' \t\n', '\uFEFF', '\u00a0\u2003'].some((v) => nonBlank.test(v))).toBe(false);
    // Cross-field rules beside the properties, and what JSON Schema cannot say as named extensions.
    const { schemas } = doc.components;
    expect(schemas.StatusDefinition.anyOf.map((b: { properties: { entityType: unknown } }) => b.properties.entityType)).toEqual([
      { const: 'lead' },
      { const: 'opportunity' },
    ]);
    expect(schemas.SendEmail.oneOf).toEqual([{ required: ['body'] }, { required: ['templateId'] }]);
    // A send's subject may come from its template: required only without one.
    expect(schemas.SendEmail.required).not.toContain('subject');
    expect(schemas.SendEmail.allOf).toEqual([{ anyOf: [{ required: ['subject'] }, { required: ['templateId'] }] }]);
    expect(
      schemas.SearchIndexRequest.anyOf.map((b: { properties: { id: { 'x-id-type': string } } }) => b.properties.id['x-id-type']),
    ).toEqual(['lead', 'opportunity', 'partner']);
    expect(schemas.CommissionCreate.properties.amount.multipleOf).toBe(0.01);
    expect(lead.status['x-references']).toBe('leadStatus');
    expect(lead.referralCode['x-references']).toBe('referralCode');
    expect(schemas.FormCreate.properties.fields['x-unique-by']).toEqual(['name']);
    expect(schemas.LandingPageDefinition.properties.sections['x-unique-by']).toEqual(['sectionId', 'order']);
    // A webhook URL's documented shape is narrower than what the server takes, so every URL of it parses.
    const hookUrl = new RegExp(schemas.WebhookCreate.properties.url.pattern);
    const shaped = ['https://hooks.example.com/in?x=1#f', 'http://a', 'http://a-b.c9:8080/p q', 'https://x.io/\u0001'];
    expect(shaped.map((u) => hookUrl.test(u))).toEqual([true, true, false, true]);
    expect(shaped.filter((u) => hookUrl.test(u)).every((u) => URL.canParse(u))).toBe(true);
    // Labels whose xn-- form is not valid Punycode, IP literals and credentials stay outside the shape.
    expect(['http://xn--zz.com/', 'http://a.0x/', 'http://10.0.0.1/', 'http://u:p@a.io/', 'ftp://a.io/'].some((u) => hookUrl.test(u))).toBe(
      false,
    );
    expect(schemas.WebhookCreate.properties.events.anyOf).toEqual([
      { items: { enum: expect.arrayContaining(['lead.created']) } },
      { items: { const: '*' } },
    ]);
    // A workflow node's data: an email's body or template, a lead_status condition's value, each action's field.
    const nodeData = (type: string) =>
      schemas.WorkflowNode.oneOf.find((b: { properties: { type: { const: string } } }) => b.properties.type.const === type).properties.data;
    expect(nodeData('email').anyOf).toEqual([{ required: ['body'] }, { required: ['templateId'] }]);
    expect(nodeData('condition').anyOf[1]).toEqual({ required: ['value'], properties: { value: { minLength: 1 } } });
    expect(nodeData('action').anyOf.map((b: { required: string[] }) => b.required[0])).toEqual(['status', 'scoreDelta', 'taskTitle']);
  });

  it('describes the lead that the API actually returns (same keys, no undocumented fields)', async () => {
    const tenant = await newTenant(stack.db);
    const lead = (await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead())).body.data;
    const schema = (await stack.http().get('/v1/openapi.json')).body.components.schemas.Lead;
    expect(Object.keys(lead).sort()).toEqual(Object.keys(schema.properties).sort());
    expect(schema.required.sort()).toEqual(Object.keys(lead).sort());
  });

  it('documents the presigned file routes with their scopes, bodies and 409s', async () => {
    const doc = (await stack.http().get('/v1/openapi.json')).body;
    const start = doc.paths['/v1/files/uploads'].post;
    expect(start['x-required-scope']).toBe('files:write');
    expect(doc.components.schemas.DirectUploadCreate.required).toEqual(expect.arrayContaining(['fileName', 'contentType', 'size']));
    expect(Object.keys(doc.components.schemas.DirectUpload.properties)).toEqual(expect.arrayContaining(['status', 'upload']));
    expect(Object.keys(doc.paths['/v1/files/{id}/complete'].post.responses)).toEqual(expect.arrayContaining(['200', '404', '409']));
    const download = doc.paths['/v1/files/{id}/download-url'].get;
    expect([download['x-required-scope'], Object.keys(download.responses)]).toEqual(['files:read', expect.arrayContaining(['200', '409'])]);
    expect(Object.keys(doc.paths['/v1/files/{id}/content'].get.responses)).toContain('409');
    // No empty file either way (a 422): the document says so, so a client or fuzzer sends none.
    expect(doc.components.schemas.DirectUploadCreate.properties.size.minimum).toBe(1);
    const form = doc.paths['/v1/files/upload'].post.requestBody.content['multipart/form-data'].schema;
    const formSchema = form.$ref ? doc.components.schemas[form.$ref.split('/').pop()] : form;
    expect(formSchema.properties.file).toMatchObject({ format: 'binary', minLength: 1 });
  });

  // Found by the OpenAPI fuzzer (test/reliability/schemathesis.test.ts): each was a real answer the
  // document did not list.
  it('documents every status a route can answer and the media type of downloads', async () => {
    const { paths } = (await stack.http().get('/v1/openapi.json')).body;
    const statuses = (path: string, method: string) => Object.keys(paths[path][method].responses);
    // A write can meet a state conflict whatever its verb (deleting an archived course, configuring an uninstalled addon).
    expect(statuses('/v1/training/courses/{id}', 'delete')).toContain('409');
    expect(statuses('/v1/addons/{id}/configuration', 'put')).toContain('409');
    // A public login answers wrong credentials with 401 and too many failures with 429.
    expect(statuses('/v1/auth/login', 'post')).toEqual(expect.arrayContaining(['401', '429']));
    // A body that names another record can 404 on it.
    expect(statuses('/v1/opportunities/convert', 'post')).toContain('404');
    // Multipart fields are validated like JSON bodies.
    expect(statuses('/v1/files/upload', 'post')).toEqual(expect.arrayContaining(['413', '415', '422']));
    // A download answers with the stored file's own type.
    expect(Object.keys(paths['/v1/files/{id}/content'].get.responses['200'].content)).toEqual(['*/*']);
  });

  it('lists the public routes outside the envelope (tracking, hosted pages, signed file URLs) as they answer', async () => {
    const { paths } = (await stack.http().get('/v1/openapi.json')).body;
    const publicOps = [
      '/v1/t/o/{token}',
      '/v1/t/c/{token}',
      '/v1/t/u/{token}',
      '/p/{tenantId}/{slug}',
      '/p/sandbox/{tenantId}/{slug}',
      '/v1/files/direct/{token}',
    ];
    for (const p of publicOps)
      for (const op of Object.values(paths[p]) as { security: unknown[]; responses: object }[]) {
        expect(op.security).toEqual([]);
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '404', '429']));
      }
    expect(Object.keys(paths['/v1/t/u/{token}'])).toEqual(['get', 'post']);
    expect(Object.keys(paths['/v1/files/direct/{token}'])).toEqual(['put', 'get']);
    // What a forged token and an unknown page actually answer is what the document says.
    const pixel = await stack.http().get('/v1/t/o/forged');
    expect(pixel.status).toBe(404);
    expect(Object.keys(paths['/v1/t/o/{token}'].get.responses['404'].content)).toEqual([pixel.type]);
    const page = await stack.http().get('/p/tenNoSuchTenant00/welcome');
    expect(page.status).toBe(404);
    expect(Object.keys(paths['/p/{tenantId}/{slug}'].get.responses['404'].content)).toEqual([page.type]);
    const file = await stack.http().get('/v1/files/direct/forged');
    expect(file.status).toBe(403);
    expect(Object.keys(paths['/v1/files/direct/{token}'].get.responses['403'].content)).toEqual([file.type]);
  });

  it("documents Twilio's status callback as Twilio posts it: public, a signed form, with the statuses it answers", async () => {
    const op = (await stack.http().get('/v1/openapi.json')).body.paths['/v1/providers/twilio/status'].post;
    expect(op.security).toEqual([]);
    expect(Object.keys(op.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(op.parameters).toHaveLength(2);
    expect(op.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'messageId', in: 'query', required: false }),
        expect.objectContaining({ name: 'x-twilio-signature', in: 'header', required: false }),
      ]),
    );
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '403', '404', '415', '422', '429']));
    // This stack has no Twilio account configured: the documented 404, in the envelope.
    const fields = { MessageSid: `SM${'0'.repeat(32)}`, MessageStatus: 'delivered', AccountSid: `AC${'0'.repeat(32)}` };
    const res = await stack.http().post('/v1/providers/twilio/status').type('form').send(fields);
    expect([res.status, res.body.success, res.type]).toEqual([404, false, 'application/json']);
  });

  it('serves interactive docs at /docs with locally bundled assets', async () => {
    const page = await stack.http().get('/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('/docs/assets/swagger-ui-bundle.js');
    const asset = await stack.http().get('/docs/assets/swagger-ui-bundle.js');
    expect(asset.status).toBe(200);
  });
});
