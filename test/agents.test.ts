import { AgentExecution } from '../db/entities';
import { decodeId } from '../lib/ids';
import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const record = (t: TestTenant, body: Record<string, unknown>) => stack.http().post('/v1/agents/executions').set(t.sandbox).send(body);
const dashboard = (t: TestTenant, q = '') => stack.http().get(`/v1/agents/dashboard${q}`).set(t.sandbox);

describe('agents', () => {
  it('reports zeros and idle agents without data, in exactly the documented shape', async () => {
    const t = await newTenant(stack.db);
    const res = await dashboard(t);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      agents: {
        caller: { status: 'idle', totalCalls: 0, successRate: 0 },
        recommender: { status: 'idle', totalRecommendations: 0, acceptRate: 0 },
      },
      recentExecutions: 0,
      pendingApprovals: 0,
    });
  });

  it('computes rates as fractions over the window and counts pending approvals', async () => {
    const t = await newTenant(stack.db);
    for (const outcome of ['success', 'success', 'success', 'failure']) await record(t, { agent: 'caller', outcome });
    await record(t, { agent: 'recommender', outcome: 'success', accepted: true, requiresApproval: true });
    await record(t, { agent: 'recommender', outcome: 'success', accepted: false });
    const old = (await record(t, { agent: 'caller', outcome: 'failure', requiresApproval: true })).body.data;
    await stack.db
      .getRepository(AgentExecution)
      .update({ id: decodeId('agentExecution', old.id) as string }, { createdAt: new Date('2020-01-01T00:00:00Z') });

    const res = await dashboard(t);
    expect(res.body.data).toEqual({
      agents: {
        caller: { status: 'active', totalCalls: 4, successRate: 0.75 },
        recommender: { status: 'active', totalRecommendations: 2, acceptRate: 0.5 },
      },
      recentExecutions: 6,
      pendingApprovals: 2,
    });
    const past = await dashboard(t, '?dateFrom=2019-12-01T00:00:00Z&dateTo=2020-02-01T00:00:00Z');
    expect(past.body.data.agents.caller).toEqual({ status: 'active', totalCalls: 1, successRate: 0 });
    expect(past.body.data.recentExecutions).toBe(1);
    // The 2020 execution lies between the two dates, but a start after the end is an empty window.
    const inverted = await dashboard(t, '?dateFrom=2020-02-01T00:00:00Z&dateTo=2019-12-01T00:00:00Z');
    expect(inverted.status).toBe(200);
    expect(inverted.body.data).toMatchObject({ recentExecutions: 0, agents: { caller: { status: 'idle', totalCalls: 0 } } });
    expect((await dashboard(t, '?dateFrom=yesterday')).status).toBe(400);
  });

  it('approves an execution once; one that needs no approval is 409', async () => {
    const t = await newTenant(stack.db);
    const pending = (await record(t, { agent: 'caller', outcome: 'success', requiresApproval: true })).body.data;
    expect(pending).toMatchObject({ approvalStatus: 'pending', approvedAt: null, accepted: null });
    expect(pending.id).toMatch(/^agx/);
    const approved = await stack.http().post(`/v1/agents/executions/${pending.id}/approve`).set(t.sandbox);
    expect(approved.status).toBe(200);
    expect(approved.body.data.approvalStatus).toBe('approved');
    const again = await stack.http().post(`/v1/agents/executions/${pending.id}/approve`).set(t.sandbox);
    expect([again.status, again.body.message]).toEqual([
      409,
      'Cannot approve an agent execution that is approved (only one that is pending)',
    ]);
    const plain = (await record(t, { agent: 'caller', outcome: 'success' })).body.data;
    expect((await stack.http().post(`/v1/agents/executions/${plain.id}/approve`).set(t.sandbox)).status).toBe(409);
    expect((await dashboard(t)).body.data.pendingApprovals).toBe(0);
  });

  it('lists executions and the approval queue (oldest first); a rejection empties it and is final', async () => {
    const t = await newTenant(stack.db);
    const first = (await record(t, { agent: 'caller', outcome: 'success', requiresApproval: true })).body.data;
    const second = (await record(t, { agent: 'recommender', outcome: 'success', requiresApproval: true })).body.data;
    const plain = (await record(t, { agent: 'caller', outcome: 'failure' })).body.data;
    const list = (q: string) => stack.http().get(`/v1/agents/executions${q}`).set(t.sandbox);
    expect((await list('')).body.data.map((e: { id: string }) => e.id)).toEqual([plain.id, second.id, first.id]);
    expect((await list('?approvalStatus=pending')).body.data.map((e: { id: string }) => e.id)).toEqual([first.id, second.id]);
    expect((await list('?agent=recommender')).body.data.map((e: { id: string }) => e.id)).toEqual([second.id]);
    expect((await list('?approvalStatus=maybe')).status).toBe(400);

    const rejected = await stack.http().post(`/v1/agents/executions/${first.id}/reject`).set(t.sandbox);
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toMatchObject({ approvalStatus: 'rejected', approvedAt: null });
    expect(Date.parse(rejected.body.data.rejectedAt)).toBeGreaterThan(Date.now() - 60_000);
    const approveRejected = await stack.http().post(`/v1/agents/executions/${first.id}/approve`).set(t.sandbox);
    expect([approveRejected.status, approveRejected.body.message]).toEqual([
      409,
      'Cannot approve an agent execution that is rejected (only one that is pending)',
    ]);
    expect((await stack.http().post(`/v1/agents/executions/${plain.id}/reject`).set(t.sandbox)).status).toBe(409);
    expect((await list('?approvalStatus=pending')).body.data.map((e: { id: string }) => e.id)).toEqual([second.id]);
    expect((await dashboard(t)).body.data.pendingApprovals).toBe(1);

    const one = await stack.http().get(`/v1/agents/executions/${first.id}`).set(t.sandbox);
    expect(one.body.data).toEqual(rejected.body.data);
    const other = await newTenant(stack.db);
    expect((await stack.http().get(`/v1/agents/executions/${first.id}`).set(other.sandbox)).status).toBe(404);
    expect((await stack.http().post(`/v1/agents/executions/${second.id}/reject`).set(other.sandbox)).status).toBe(404);
    expect((await stack.http().get('/v1/agents/executions').set(t.live)).body.data).toEqual([]);
  });

  it('validates executions with 422 field errors', async () => {
    const t = await newTenant(stack.db);
    const res = await record(t, { agent: 'closer', outcome: 'maybe' });
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['agent', 'outcome']);
    const accepted = await record(t, { agent: 'caller', outcome: 'success', accepted: true });
    expect(accepted.body.errors).toEqual([{ field: 'accepted', message: 'Only recommender executions can be accepted' }]);
  });
});
