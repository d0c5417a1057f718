import { decodeId } from '../lib/ids';
import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';
import { validSequence } from './support/workflow-fixtures';

let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

type Def = ReturnType<typeof validSequence>;
const post = (body: object) => stack.http().post('/v1/workflows').set(tenant.sandbox).send(body);
const mutate = (change: (d: Def) => void) => {
  const d = validSequence();
  change(d);
  return d;
};
const errorsOf = async (body: object) => {
  const res = await post(body);
  expect(res.status).toBe(422);
  return res.body.errors as { field: string; message: string }[];
};

describe('workflow definitions (/v1/workflows)', () => {
  it('stores a valid sequence at version 1 and reads it back', async () => {
    const res = await post(validSequence());
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ ...validSequence(), version: 1, id: expect.stringMatching(/^wfl/) });
    const got = await stack.http().get(`/v1/workflows/${res.body.data.id}`).set(tenant.sandbox);
    expect(got.body.data).toEqual(res.body.data);
  });

  it('refuses a sequence without a trigger, or with two', async () => {
    expect(await errorsOf(mutate((d) => (d.nodes[0] = { ...d.nodes[0], type: 'end', data: {} as never })))).toContainEqual({
      field: 'nodes',
      message: expect.stringMatching(/Exactly one trigger/),
    });
    const two = mutate((d) =>
      d.nodes.push({ nodeId: 'start2', type: 'trigger', position: { x: 1, y: 1 }, data: { triggerType: 'manual' } as never }),
    );
    expect((await errorsOf(two)).map((e) => e.field)).toContain('nodes.6.type');
  });

  it('names the edge that points at a node that does not exist', async () => {
    const errors = await errorsOf(mutate((d) => (d.edges[1].target = 'nowhere')));
    expect(errors).toContainEqual({ field: 'edges.1.target', message: expect.stringContaining('"nowhere"') });
  });

  it('names the edge that closes a cycle', async () => {
    const errors = await errorsOf(mutate((d) => d.edges.push({ edgeId: 'back', source: 'follow', target: 'hello' } as never)));
    expect(errors.map((e) => e.field)).toEqual(expect.arrayContaining(['edges.6.target']));
    expect(errors.find((e) => e.field === 'edges.6.target')?.message).toMatch(/cycle/);
  });

  it('names a condition that lacks its false branch', async () => {
    const errors = await errorsOf(mutate((d) => (d.edges[4].branch = 'true')));
    expect(errors).toContainEqual({ field: 'nodes.3', message: expect.stringContaining('"opened"') });
  });

  it('names a wait with a non-positive duration or an unknown unit', async () => {
    expect((await errorsOf(mutate((d) => ((d.nodes[2].data as { duration: number }).duration = 0)))).map((e) => e.field)).toEqual([
      'nodes.2.data.duration',
    ]);
    const unit = await errorsOf(mutate((d) => ((d.nodes[2].data as { durationUnit: string }).durationUnit = 'weeks')));
    expect(unit.map((e) => e.field)).toEqual(['nodes.2.data.durationUnit']);
  });

  it('names an email without subjectLine and a condition on an unknown field', async () => {
    const noSubject = mutate((d) => delete (d.nodes[1].data as { subjectLine?: string }).subjectLine);
    expect((await errorsOf(noSubject)).map((e) => e.field)).toEqual(['nodes.1.data.subjectLine']);
    const badField = mutate((d) => ((d.nodes[3].data as { conditionField: string }).conditionField = 'mood'));
    expect((await errorsOf(badField)).map((e) => e.field)).toEqual(['nodes.3.data.conditionField']);
  });

  it('names a lead status the tenant does not have, in an action or a condition, on create and on PATCH', async () => {
    /** The sequence with its follow-up email replaced by an update_lead_status action. */
    const setting = (status: string) => {
      const d = validSequence() as { nodes: { nodeId: string; data: object }[] };
      d.nodes[4] = { ...d.nodes[4], type: 'action', data: { actionType: 'update_lead_status', status } } as (typeof d.nodes)[4];
      return d;
    };
    const typo = setting('qualifed');
    typo.nodes[3].data = { conditionField: 'lead_status', value: 'hot' };
    const statuses = 'the statuses are new, contacted, qualified, unqualified';
    expect(await errorsOf(typo)).toEqual([
      { field: 'nodes.3.data.value', message: `Unknown lead status "hot"; ${statuses}` },
      { field: 'nodes.4.data.status', message: `Unknown lead status "qualifed"; ${statuses}` },
    ]);
    const fixed = setting('qualified');
    const saved = (await post(fixed).expect(201)).body.data;
    const patch = await stack.http().patch(`/v1/workflows/${saved.id}`).set(tenant.sandbox).send({ nodes: typo.nodes });
    expect([patch.status, patch.body.errors.map((e: { field: string }) => e.field)]).toEqual([
      422,
      ['nodes.3.data.value', 'nodes.4.data.status'],
    ]);
  });

  it('keeps a workflow a campaign not completed yet uses: 409 until the campaign is completed or deleted', async () => {
    const workflow = (await post(validSequence()).expect(201)).body.data;
    const campaign = (
      await stack.http().post('/v1/campaigns').set(tenant.sandbox).send({ name: 'Uses it', workflowId: workflow.id }).expect(201)
    ).body.data;
    const refused = await stack.http().delete(`/v1/workflows/${workflow.id}`).set(tenant.sandbox);
    expect([refused.status, refused.body.message]).toEqual([
      409,
      '1 campaign uses this workflow (draft, active or paused); complete or delete them before deleting it',
    ]);
    await stack.http().delete(`/v1/campaigns/${campaign.id}`).set(tenant.sandbox).expect(200);
    await stack.http().delete(`/v1/workflows/${workflow.id}`).set(tenant.sandbox).expect(200);
  });

  it('never lets a campaign name a workflow deleted at the same instant: the create waits for the delete, then is 422', async () => {
    const workflow = (await post(validSequence()).expect(201)).body.data;
    const internalId = decodeId('workflow', workflow.id);
    // A delete in flight: it holds the definition row FOR UPDATE (as deleteSequenceDefinition does) until it commits.
    const runner = stack.db.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query('SELECT id FROM workflow_definitions WHERE id = $1 FOR UPDATE', [internalId]);
      const create = stack
        .http()
        .post('/v1/campaigns')
        .set(tenant.sandbox)
        .send({ name: 'Racing', workflowId: workflow.id })
        .then((r) => r);
      await new Promise((r) => setTimeout(r, 300));
      await runner.query('DELETE FROM workflow_definition_versions WHERE workflow_definition_id = $1', [internalId]);
      await runner.query('DELETE FROM workflow_definitions WHERE id = $1', [internalId]);
      await runner.commitTransaction();
      const res = await create;
      expect([res.status, res.body.errors]).toEqual([422, [{ field: 'workflowId', message: 'Workflow not found' }]]);
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('names duplicate node and edge IDs', async () => {
    const errors = await errorsOf(
      mutate((d) => {
        d.nodes[5].nodeId = 'follow';
        d.edges[5].edgeId = 'e1';
      }),
    );
    expect(errors.map((e) => e.field)).toEqual(expect.arrayContaining(['nodes.5.nodeId', 'edges.5.edgeId']));
  });

  it('increments the version on every PATCH, keeps every version, and re-checks the merged graph', async () => {
    const created = (await post(validSequence())).body.data;
    const v2 = await stack.http().patch(`/v1/workflows/${created.id}`).set(tenant.sandbox).send({ name: 'Renamed' });
    expect(v2.status).toBe(200);
    expect(v2.body.data).toMatchObject({ name: 'Renamed', version: 2, nodes: created.nodes });
    const broken = await stack
      .http()
      .patch(`/v1/workflows/${created.id}`)
      .set(tenant.sandbox)
      .send({ edges: validSequence().edges.slice(0, 4) });
    expect(broken.status).toBe(422);
    expect(broken.body.errors.map((e: { field: string }) => e.field)).toContain('nodes.3');
    const v3 = await stack.http().patch(`/v1/workflows/${created.id}`).set(tenant.sandbox).send({ description: 'v3' });
    expect(v3.body.data.version).toBe(3);
    const rows = await stack.db.query(
      `SELECT version, name FROM workflow_definition_versions WHERE workflow_definition_id = (SELECT id FROM workflow_definitions WHERE name = 'Renamed' AND description = 'v3' AND tenant_id = $1) ORDER BY version`,
      [tenant.tenant.id],
    );
    expect(rows).toEqual([
      { version: 1, name: 'Welcome sequence' },
      { version: 2, name: 'Renamed' },
      { version: 3, name: 'Renamed' },
    ]);
  });

  it('gives concurrent PATCHes consecutive versions', async () => {
    const created = (await post(validSequence())).body.data;
    const results = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        stack
          .http()
          .patch(`/v1/workflows/${created.id}`)
          .set(tenant.sandbox)
          .send({ description: `d${i}` }),
      ),
    );
    expect(results.map((r) => r.body.data.version).sort()).toEqual([2, 3, 4, 5]);
  });

  it('keeps tenants and environments apart, lists, and deletes', async () => {
    const created = (await post(validSequence())).body.data;
    const other = await newTenant(stack.db);
    expect((await stack.http().get(`/v1/workflows/${created.id}`).set(other.sandbox)).status).toBe(404);
    expect((await stack.http().get(`/v1/workflows/${created.id}`).set(tenant.live)).status).toBe(404);
    expect((await stack.http().patch(`/v1/workflows/${created.id}`).set(tenant.live).send({ name: 'x' })).status).toBe(404);
    const list = await stack.http().get('/v1/workflows?limit=100').set(tenant.sandbox);
    expect(list.body.data.map((w: { id: string }) => w.id)).toContain(created.id);
    expect((await stack.http().delete(`/v1/workflows/${created.id}`).set(tenant.sandbox)).status).toBe(200);
    expect((await stack.http().get(`/v1/workflows/${created.id}`).set(tenant.sandbox)).status).toBe(404);
  });
});
