import { encodeId } from '../lib/ids';
import { outboxOf } from './support/events';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

const create = (body: Record<string, unknown>, t = tenant) => stack.http().post('/v1/tasks').set(t.sandbox).send(body);
const hoursFromNow = (h: number) => new Date(Date.now() + h * 3600_000).toISOString();

describe('tasks', () => {
  it('creates a pending task assigned to the actor and emits task.created', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const lead = (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead())).body.data;
    const res = await create({ title: 'Call Ada', type: 'call', leadId: lead.id, dueAt: hoursFromNow(24) }, t);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      title: 'Call Ada',
      type: 'call',
      status: 'pending',
      leadId: lead.id,
      opportunityId: null,
      assignedTo: encodeId('user', t.user.id),
      completedAt: null,
    });
    expect(res.body.data.id).toMatch(/^tsk/);
    const events = await outboxOf(stack.db, t, 'sandbox', ['task.created']);
    expect(events).toEqual([
      { type: 'task.created', data: { taskId: res.body.data.id, title: 'Call Ada', assigneeId: encodeId('user', t.user.id) } },
    ]);
  });

  it('answers unknown links and bad fields with 422 field errors', async () => {
    const other = await newTenant(stack.db);
    const foreignLead = (await stack.http().post('/v1/leads').set(other.sandbox).send(validLead())).body.data;
    const res = await create({ title: 'x', leadId: foreignLead.id });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'leadId', message: 'Lead not found' }]);
    const user = await create({ title: 'x', assignedTo: encodeId('user', other.user.id) });
    expect(user.body.errors).toEqual([{ field: 'assignedTo', message: 'User not found' }]);
    const foreignDeal = (await stack.http().post('/v1/opportunities').set(other.sandbox).send({ name: 'Theirs', value: 100 })).body.data;
    const deal = await create({ title: 'x', opportunityId: foreignDeal.id });
    expect([deal.status, deal.body.errors]).toEqual([422, [{ field: 'opportunityId', message: 'Opportunity not found' }]]);
    const bad = await create({ title: '', type: 'fax', dueAt: 'tomorrow', opportunityId: 'nope' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['dueAt', 'opportunityId', 'title', 'type']);
  });

  it("links a task to a deal of the caller's and lists a deal's tasks", async () => {
    const t = await newTenant(stack.db);
    const deal = (await stack.http().post('/v1/opportunities').set(t.sandbox).send({ name: 'Renewal', value: 900 })).body.data;
    const linked = await create({ title: 'Send the renewal quote', opportunityId: deal.id }, t);
    expect([linked.status, linked.body.data.opportunityId]).toEqual([201, deal.id]);
    await create({ title: 'Unrelated' }, t);
    const list = await stack.http().get(`/v1/tasks?opportunityId=${deal.id}`).set(t.sandbox);
    expect(list.body.data.map((task: { title: string }) => task.title)).toEqual(['Send the renewal quote']);
    const unlinked = await stack.http().patch(`/v1/tasks/${linked.body.data.id}`).set(t.sandbox).send({ opportunityId: null });
    expect(unlinked.body.data.opportunityId).toBeNull();
  });

  it("refuses a deal of another lead than the task's, and takes back links to records deleted since", async () => {
    const t = await newTenant(stack.db);
    const [ada, bob] = [
      (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead())).body.data,
      (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead())).body.data,
    ];
    const bobsDeal = (await stack.http().post('/v1/opportunities').set(t.sandbox).send({ name: 'Bob', value: 1, leadId: bob.id })).body
      .data;
    const mixed = await create({ title: 'x', leadId: ada.id, opportunityId: bobsDeal.id }, t);
    expect([mixed.status, mixed.body.errors]).toEqual([
      422,
      [{ field: 'opportunityId', message: `Is the deal of another lead (${bob.id}); link the task to that lead, or leave leadId out` }],
    ]);
    const task = (await create({ title: 'Call Bob', leadId: bob.id, opportunityId: bobsDeal.id }, t)).body.data;
    const moved = await stack.http().patch(`/v1/tasks/${task.id}`).set(t.sandbox).send({ leadId: ada.id });
    expect([moved.status, moved.body.errors[0].field]).toEqual([422, 'opportunityId']);
    // The record sent back as it was read, after its lead was deleted: no change to its links, no 422.
    await stack.http().delete(`/v1/leads/${bob.id}`).set(t.sandbox).expect(200);
    const { id, title, leadId, opportunityId } = task;
    await stack
      .http()
      .patch(`/v1/tasks/${id}`)
      .set(t.sandbox)
      .send({ title: `${title}!`, leadId, opportunityId })
      .expect(200);
  });

  it('completes once: a second complete, or completing a cancelled task, is 409', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const task = (await create({ title: 'Send proposal' }, t)).body.data;
    const started = await stack.http().post(`/v1/tasks/${task.id}/start`).set(t.sandbox);
    expect([started.status, started.body.data.status]).toEqual([200, 'in_progress']);
    const done = await stack.http().post(`/v1/tasks/${task.id}/complete`).set(t.sandbox);
    expect(done.status).toBe(200);
    expect(done.body.data.status).toBe('completed');
    expect(done.body.data.completedAt).not.toBeNull();
    const again = await stack.http().post(`/v1/tasks/${task.id}/complete`).set(t.sandbox);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('Cannot complete a task that is completed (only one that is pending or in_progress)');

    const other = (await create({ title: 'Drop it' }, t)).body.data;
    expect((await stack.http().post(`/v1/tasks/${other.id}/cancel`).set(t.sandbox)).status).toBe(200);
    expect((await stack.http().post(`/v1/tasks/${other.id}/complete`).set(t.sandbox)).status).toBe(409);

    const events = await outboxOf(stack.db, t, 'sandbox', ['task.completed']);
    expect(events).toEqual([{ type: 'task.completed', data: { taskId: task.id } }]);
  });

  it('filters by status, type, lead, assignee, due window and overdue, with pagination arithmetic', async () => {
    const t = await newTenant(stack.db);
    const lead = (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead())).body.data;
    const late = (await create({ title: 'late', type: 'call', dueAt: hoursFromNow(-2), leadId: lead.id }, t)).body.data;
    const lateDone = (await create({ title: 'late but done', type: 'call', dueAt: hoursFromNow(-3) }, t)).body.data;
    await stack.http().post(`/v1/tasks/${lateDone.id}/complete`).set(t.sandbox);
    await create({ title: 'soon', type: 'email', dueAt: hoursFromNow(5) }, t);
    await create({ title: 'later', type: 'meeting', dueAt: hoursFromNow(50), assignedTo: null }, t);
    await create({ title: 'no date', type: 'note' }, t);

    const list = (q: string) => stack.http().get(`/v1/tasks?${q}`).set(t.sandbox);
    const titles = async (q: string) => (await list(q)).body.data.map((x: { title: string }) => x.title).sort();
    expect(await titles('overdue=true')).toEqual(['late']);
    expect(await titles('status=completed')).toEqual(['late but done']);
    expect(await titles('type=call')).toEqual(['late', 'late but done']);
    expect(await titles(`leadId=${lead.id}`)).toEqual(['late']);
    expect(await titles(`dueFrom=${encodeURIComponent(hoursFromNow(0))}&dueTo=${encodeURIComponent(hoursFromNow(10))}`)).toEqual(['soon']);
    expect((await titles(`assignedTo=${encodeId('user', t.user.id)}`)).length).toBe(4);

    const page = await list('limit=2&page=3&sort=title:asc');
    expect(page.body.pagination).toEqual({ page: 3, limit: 2, total: 5, totalPages: 3, hasNext: false, hasPrev: true });
    expect(page.body.data.map((x: { title: string }) => x.title)).toEqual(['soon']);
    expect(late.status).toBe('pending');
    expect((await list('overdue=maybe')).status).toBe(400);
  });

  it('takes a date alone as a bound of the due window: that whole day in UTC, both bounds inclusive', async () => {
    const t = await newTenant(stack.db);
    for (const [title, dueAt] of [
      ['eve', '2031-02-28T23:59:59.999Z'],
      ['first', '2031-03-01T00:00:00Z'],
      ['last', '2031-03-01T23:59:59.999Z'],
      ['next', '2031-03-02T00:00:00Z'],
    ])
      await create({ title, dueAt }, t).expect(201);
    const titles = async (q: string) =>
      (await stack.http().get(`/v1/tasks?${q}`).set(t.sandbox).expect(200)).body.data.map((x: { title: string }) => x.title).sort();
    expect(await titles('dueFrom=2031-03-01&dueTo=2031-03-01')).toEqual(['first', 'last']);
    expect(await titles('dueFrom=2031-03-02')).toEqual(['next']);
    expect(await titles('dueTo=2031-02-28')).toEqual(['eve']);
    // With a time, the bound is that moment.
    expect(await titles(`dueTo=${encodeURIComponent('2031-03-01T00:00:00Z')}`)).toEqual(['eve', 'first']);
    const bad = await stack.http().get('/v1/tasks?dueTo=2031-03').set(t.sandbox);
    expect([bad.status, bad.body.errors]).toEqual([
      400,
      [
        {
          field: 'dueTo',
          message:
            'Must be an ISO 8601 date and time, such as 2026-12-02T09:30:00Z, or a date, such as 2026-12-02 (to the end of that day, UTC)',
        },
      ],
    ]);
  });

  it('updates and deletes a task; another tenant or environment sees 404', async () => {
    const task = (await create({ title: 'Old title' })).body.data;
    const other = await newTenant(stack.db);
    expect((await stack.http().get(`/v1/tasks/${task.id}`).set(other.sandbox)).status).toBe(404);
    expect((await stack.http().get(`/v1/tasks/${task.id}`).set(tenant.live)).status).toBe(404);
    const patched = await stack.http().patch(`/v1/tasks/${task.id}`).set(tenant.sandbox).send({ title: 'New title', dueAt: null });
    expect(patched.body.data).toMatchObject({ title: 'New title', dueAt: null });
    expect((await stack.http().patch(`/v1/tasks/${task.id}`).set(tenant.sandbox).send({ status: 'completed' })).status).toBe(422);
    expect((await stack.http().delete(`/v1/tasks/${task.id}`).set(tenant.sandbox)).status).toBe(200);
    expect((await stack.http().get(`/v1/tasks/${task.id}`).set(tenant.sandbox)).status).toBe(404);
  });
});
