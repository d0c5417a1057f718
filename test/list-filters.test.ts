import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const get = (t: TestTenant, path: string) => stack.http().get(path).set(t.sandbox);

describe('filters of several values', () => {
  it('match any of the values separated by commas, or of a repeated parameter; a single value as before', async () => {
    const t = await newTenant(stack.db);
    const create = async (title: string, type: string) =>
      (await stack.http().post('/v1/tasks').set(t.sandbox).send({ title, type }).expect(201)).body.data;
    await create('waiting', 'call');
    const started = await create('started', 'email');
    const done = await create('done', 'meeting');
    await stack.http().post(`/v1/tasks/${started.id}/start`).set(t.sandbox).expect(200);
    await stack.http().post(`/v1/tasks/${done.id}/complete`).set(t.sandbox).expect(200);
    const titles = async (query: string) =>
      (await get(t, `/v1/tasks?${query}`).expect(200)).body.data.map((x: { title: string }) => x.title).sort();

    expect(await titles('status=pending,in_progress')).toEqual(['started', 'waiting']);
    expect(await titles('status=pending&status=in_progress')).toEqual(['started', 'waiting']);
    expect(await titles('status[]=pending&status[]=completed')).toEqual(['done', 'waiting']);
    expect(await titles('status=completed')).toEqual(['done']);
    // A value given twice matches once; two filters still both apply.
    expect(await titles('status=pending,pending')).toEqual(['waiting']);
    expect(await titles('status=pending,in_progress&type=email,meeting')).toEqual(['started']);
  });

  it('name the value that is none of the allowed ones, and an empty one; another parameter is still given once', async () => {
    const t = await newTenant(stack.db);
    const errors = async (query: string) => {
      const res = await get(t, `/v1/tasks?${query}`);
      expect(res.status).toBe(400);
      return res.body.errors;
    };
    const wanted = 'Must be one of "pending", "in_progress", "completed", "cancelled"';
    expect(await errors('status=pending,complete')).toEqual([
      { field: 'status', message: `${wanted}, or several separated by commas; "complete" is none of them: did you mean "completed"?` },
    ]);
    expect(await errors('status=pending&status=open')).toEqual([
      { field: 'status', message: `${wanted}, or several separated by commas; "open" is none of them` },
    ]);
    expect(await errors('status=pending,')).toEqual([
      { field: 'status', message: `${wanted}, or several separated by commas; an empty value (two commas in a row, or one at an end)` },
    ]);
    // A single value is answered as before.
    expect(await errors('status=complete')).toEqual([{ field: 'status', message: `${wanted}; did you mean "completed"?` }]);
    expect(await errors('limit=1&limit=2')).toEqual([{ field: 'limit', message: 'Given more than once; give it once' }]);
  });

  it("take several of the tenant's lead statuses, and name one that is none of them even when the others match", async () => {
    const t = await newTenant(stack.db);
    const lead = async (email: string, status: string) =>
      (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead({ email, status })).expect(201)).body.data;
    await lead('new@example.com', 'new');
    await lead('contacted@example.com', 'contacted');
    await lead('lost@example.com', 'unqualified');
    const emails = async (query: string) =>
      (await get(t, `/v1/leads?${query}`).expect(200)).body.data.map((l: { email: string }) => l.email).sort();
    expect(await emails('status=new,contacted')).toEqual(['contacted@example.com', 'new@example.com']);
    expect(await emails('status=qualified')).toEqual([]);
    expect(await emails('source=api,web&status=unqualified')).toEqual(['lost@example.com']);

    const bad = await get(t, '/v1/leads?status=new,contacted,qualifed');
    expect([bad.status, bad.body.errors]).toEqual([
      400,
      [
        {
          field: 'status',
          message:
            'Must be one of the tenant\'s lead statuses (GET /v1/config/statuses?entityType=lead): "new", "contacted", "qualified", "unqualified", or several separated by commas; "qualifed" is none of them: did you mean "qualified"?',
        },
      ],
    ]);
    const empty = await get(t, '/v1/leads?status=new,,contacted');
    expect([empty.status, empty.body.errors]).toEqual([
      400,
      [{ field: 'status', message: 'Has an empty value (two commas in a row, or one at an end)' }],
    ]);
    const many = await get(t, `/v1/leads?status=${Array.from({ length: 21 }, (_, i) => `s${i}`).join(',')}`);
    expect([many.status, many.body.errors]).toEqual([
      400,
      [{ field: 'status', message: 'Must have at most 20 values separated by commas' }],
    ]);
  });

  it("keep the agents' approval queue oldest first only for pending alone", async () => {
    const t = await newTenant(stack.db);
    const run = async (outcome: string, requiresApproval: boolean) =>
      (await stack.http().post('/v1/agents/executions').set(t.sandbox).send({ agent: 'caller', outcome, requiresApproval }).expect(201))
        .body.data.id;
    const first = await run('success', true);
    const second = await run('success', true);
    const third = await run('failure', false);
    const ids = async (query: string) =>
      (await get(t, `/v1/agents/executions?${query}`).expect(200)).body.data.map((e: { id: string }) => e.id);
    expect(await ids('approvalStatus=pending')).toEqual([first, second]);
    expect(await ids('approvalStatus=pending,not_required')).toEqual([third, second, first]);
  });

  it('are stated in the API document: the pattern of the values and how to give several', async () => {
    const doc = (await stack.http().get('/v1/openapi.json').expect(200)).body;
    const parameter = doc.paths['/v1/tasks'].get.parameters.find((p: { name: string }) => p.name === 'status');
    expect(parameter.schema).toMatchObject({
      type: 'string',
      pattern: '^(?:pending|in_progress|completed|cancelled)(?:,(?:pending|in_progress|completed|cancelled))*$',
      'x-comma-list': true,
    });
    expect(parameter.schema.description ?? parameter.description).toContain('or several separated by commas to match any of them');
  });
});
