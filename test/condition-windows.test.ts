import { SmtpSink } from './support/smtp-sink';
import { startMailStack } from './support/mail-stack';
import { validLead, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';

/** Conditions say what they wait for: in the definition, its warnings, and the running enrollment's progress. */
let stack: TestStack;
let tenant: TestTenant;
let smtp: SmtpSink;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ stack, tenant, smtp, stop } = await startMailStack({ name: 'condition-windows' }));
});
afterAll(() => stop());

const api = () => stack.http();
const pos = { x: 0, y: 0 };
type Window = { duration: number; durationUnit: 'minutes' | 'hours' | 'days' };

/** trigger -> email n2 -> [wait 1 minute] -> opened? (window or none) -> end either way */
function definition(opts: { wait: boolean; window?: Window }) {
  const wait = opts.wait ? [{ nodeId: 'n3', type: 'wait', position: pos, data: { duration: 1, durationUnit: 'minutes' } }] : [];
  const path = ['n1', 'n2', ...wait.map((w) => w.nodeId), 'n4'];
  return {
    name: 'Opened?',
    nodes: [
      { nodeId: 'n1', type: 'trigger', position: pos, data: { triggerType: 'manual' } },
      { nodeId: 'n2', type: 'email', position: pos, data: { subjectLine: 'Hello', body: 'Hi {{firstName}}' } },
      ...wait,
      {
        nodeId: 'n4',
        type: 'condition',
        position: pos,
        data: { conditionField: 'email_opened', ...(opts.window ? { window: opts.window } : {}) },
      },
      { nodeId: 'yes', type: 'end', position: pos, data: {} },
      { nodeId: 'no', type: 'end', position: pos, data: {} },
    ],
    edges: [
      ...path.slice(1).map((target, i) => ({ edgeId: `e${i}`, source: path[i], target })),
      { edgeId: 'et', source: 'n4', target: 'yes', branch: 'true' },
      { edgeId: 'ef', source: 'n4', target: 'no', branch: 'false' },
    ],
  };
}

describe('condition windows', () => {
  it('warns when a condition follows a wait without a window, and shows the default window it will use', async () => {
    const created = await api()
      .post('/v1/workflows')
      .set(tenant.live)
      .send(definition({ wait: true }))
      .expect(201);
    expect(created.body.data.warnings).toEqual([
      { field: 'nodes.3.data.window', message: expect.stringContaining('Condition "n4" follows wait "n3" and has no window') },
    ]);
    expect(created.body.data.warnings[0].message).toContain('48 hours');

    const got = await api().get(`/v1/workflows/${created.body.data.id}`).set(tenant.live).expect(200);
    expect(got.body.data.nodes[3].data.window).toEqual({ duration: 48, durationUnit: 'hours' });
    expect(got.body.data.warnings).toHaveLength(1);
  });

  it('gives no warning for an explicit window or a condition that does not follow a wait, and returns the window as given', async () => {
    const explicit = await api()
      .post('/v1/workflows')
      .set(tenant.live)
      .send(definition({ wait: true, window: { duration: 30, durationUnit: 'minutes' } }))
      .expect(201);
    expect(explicit.body.data.warnings).toEqual([]);
    const got = await api().get(`/v1/workflows/${explicit.body.data.id}`).set(tenant.live).expect(200);
    expect(got.body.data.nodes[3].data.window).toEqual({ duration: 30, durationUnit: 'minutes' });

    const noWait = await api()
      .post('/v1/workflows')
      .set(tenant.live)
      .send(definition({ wait: false }))
      .expect(201);
    expect(noWait.body.data.warnings).toEqual([]);
  });

  it('documents the default window in the OpenAPI description of the condition data', async () => {
    const doc = JSON.stringify((await api().get('/v1/openapi.json').expect(200)).body);
    expect(doc).toContain('Default 48 hours; responses always show the window in effect');
  });

  it("shows in an enrollment's progress what its condition waits for and until when", async () => {
    const workflow = await api()
      .post('/v1/workflows')
      .set(tenant.live)
      .send(definition({ wait: false, window: { duration: 1, durationUnit: 'days' } }))
      .expect(201);
    const campaign = (
      await api()
        .post('/v1/campaigns')
        .set(tenant.live)
        .send({ name: 'Windows', workflowId: workflow.body.data.id, status: 'active' })
        .expect(201)
    ).body.data.id;
    const lead = (await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data;
    await api()
      .post(`/v1/campaigns/${campaign}/enrollments`)
      .set(tenant.live)
      .send({ leadIds: [lead.id] })
      .expect(200);

    const progress = await waitUntil(async () => {
      const list = await api().get(`/v1/campaigns/${campaign}/enrollments`).set(tenant.live).expect(200);
      const p = list.body.data[0]?.progress;
      return p?.currentNodeId === 'n4' && p.waitingFor && p;
    }, 'the enrollment waiting in its condition');
    expect(progress.waitingFor).toBe(`waiting for open of n2 until ${progress.nextWakeAt}`);
    expect(Date.parse(progress.nextWakeAt) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(smtp.to(lead.email)).toHaveLength(1);
  });
});
