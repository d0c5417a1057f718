import { Tenant } from '../../db/entities';
import { newTenant, validLead, type TestTenant } from '../support/stack';
import { bestOfTwo, bystanderLatency, floodTarget, timeDuringFlood, timedFetch, type Timed } from '../support/bystander';

/**
 * Reads of one ID that arrive together share a statement (db/grouped-reads.ts), and a GET that
 * joins a group gives its fair-share slot back while its tenant is alone in the process, so a
 * tenant's concurrent reads are not queued one by one behind each other
 * (api/middleware/tenant-fair-share.ts). Here one tenant reads a handful of its leads at 50
 * concurrent requests while another tenant creates and reads its own leads one at a time: nobody
 * gets a 5xx, every read answers with the lead it asked for (groups never mix tenants), and the
 * other tenant's p99 stays within 3x its p99 on the quiet machine, as for the duplicate flood. The
 * API and the worker are the real entry points as child processes, and the flood comes from a
 * process of its own (flood-driver.ts).
 */
const FLOOD_READS = Number(process.env.FLOOD_READS ?? 20_000);
const FLOOD_CONCURRENCY = 50;
/** Few IDs, so that most of the flood's reads arrive while a read of the same ID is in flight. */
const FLOODED_LEADS = 5;
const QUIET_REQUESTS = 1000;
/** As test/reliability/duplicate-flood.test.ts. */
const GOAL_RATIO = 3;
const STARVED_MS = 1000;
const UNLIMITED = { monthlyCalls: 1e9, perMinute: 1e8, burst: 1e7 };

const target = floodTarget();
let bystander: TestTenant;
const bystanderLeads: string[] = [];
/** Reads the bystander got another lead for (ID asked: body): none, groups never mix. */
const wrongReads: string[] = [];
let firstFailure: string | undefined;

beforeAll(async () => {
  bystander = await newTenant(target.db);
});

const noteFailure = (text: string) => (firstFailure ??= text);
/** The ID of the lead in a response's envelope. */
const idOf = (body: string) => (JSON.parse(body) as { data: { id: string } }).data.id;

async function createLead(tenant: TestTenant): Promise<Timed & { body: string }> {
  return timedFetch(
    `${target.baseUrl}/v1/leads`,
    { method: 'POST', headers: { ...tenant.live, 'Content-Type': 'application/json' }, body: JSON.stringify(validLead()) },
    noteFailure,
  );
}

/** The bystander's requests in turn: a create, then a read of one of its leads (checked to be that lead). */
let turn = 0;
async function bystanderRequest(): Promise<Timed> {
  if (turn++ % 2 === 0 || !bystanderLeads.length) {
    const created = await createLead(bystander);
    if (created.status === 201) bystanderLeads.push(idOf(created.body));
    return created;
  }
  const id = bystanderLeads[turn % bystanderLeads.length];
  const read = await timedFetch(`${target.baseUrl}/v1/leads/${id}`, { headers: bystander.live }, noteFailure);
  if (read.status === 200 && idOf(read.body) !== id) wrongReads.push(`${id}: ${read.body}`);
  return read;
}

async function floodWhileTimed() {
  const flooder = await newTenant(target.db);
  // Its rate limit is not what this measures: on a faster machine the flood would meet it first.
  await target.db.getRepository(Tenant).update(flooder.tenant.id, { customLimits: UNLIMITED });
  const floodedIds: string[] = [];
  for (let i = 0; i < FLOODED_LEADS; i++) floodedIds.push(idOf((await createLead(flooder)).body));
  const run = await timeDuringFlood(bystanderRequest, QUIET_REQUESTS, {
    url: target.baseUrl,
    apiKey: flooder.live['X-API-Key'],
    count: FLOOD_READS,
    concurrency: FLOOD_CONCURRENCY,
    requests: { kind: 'read', leadIds: floodedIds },
  });

  const failure = run.flood.firstFailure ?? firstFailure;
  if (failure) console.log(`first 5xx: ${failure}`);
  expect(run.flood.statuses).toHaveLength(FLOOD_READS);
  expect(run.flood.statuses.filter((s) => s !== 200)).toEqual([]);
  expect([...run.quiet, ...run.during].filter((r) => r.status !== 200 && r.status !== 201)).toEqual([]);
  expect(wrongReads).toEqual([]);
  return bystanderLatency(`read flood: ${FLOOD_READS} reads of ${FLOODED_LEADS} leads`, run);
}

describe('a flood of reads of a few leads', () => {
  it('fails no request of either tenant, answers every read with its own lead, and keeps the other tenant within 3x its quiet p99', async () => {
    for (let i = 0; i < 50; i++) await bystanderRequest(); // warm up: prepared statements, JIT, ID blocks
    const best = await bestOfTwo(GOAL_RATIO, floodWhileTimed);
    expect(best.floodP99).toBeLessThan(STARVED_MS);
    expect(best.ratio).toBeLessThan(GOAL_RATIO);
  });
});
