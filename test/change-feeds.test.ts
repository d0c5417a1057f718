import { LEAD_FEED } from '../domain/change-feeds/feeds';
import { pruneDeletions } from '../domain/change-feeds/prune';
import { changesSql } from '../domain/change-feeds/read';
import { encodeChangeCursor, FEED_START } from '../lib/change-cursor';
import { decodeId } from '../lib/ids';
import { ensureChangeFeedPurgeSchedule, changeFeedPurgeScheduleId } from '../lib/temporal/change-feed-purge-schedule';
import { changeFeedPurgeWorkflow } from '../workflows/change-feed-purge';
import { genericPlan, withLargeTable } from './support/query-plans';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

interface Change {
  type: 'changed' | 'deleted';
  lead?: { id: string; score: number; lastName: string };
  id?: string;
  deletedAt?: string;
}
interface Read {
  changes: Change[];
  nextCursor: string;
  hasMore: boolean;
}

const read = async (t: TestTenant, cursor?: string, query = '', env: 'live' | 'sandbox' = 'live'): Promise<Read> => {
  const params = new URLSearchParams(query);
  if (cursor) params.set('cursor', cursor);
  return (await stack.http().get(`/v1/leads/changes?${params}`).set(t[env]).expect(200)).body.data;
};
/** Each change as `changed <id>` or `deleted <id>`. */
const seen = (changes: Change[]) => changes.map((c) => `${c.type} ${c.type === 'changed' ? c.lead?.id : c.id}`);
const create = async (t: TestTenant, fields: Record<string, unknown> = {}, env: 'live' | 'sandbox' = 'live') =>
  (await stack.http().post('/v1/leads').set(t[env]).send(validLead(fields)).expect(201)).body.data as { id: string };

/**
 * The changes after `cursor` once at least `count` have come, read on from each answer's
 * nextCursor as a sync does. The feed stops below the oldest writing transaction still open in the
 * whole database, and the test files running beside this one open some, so a change may come a
 * moment after its commit.
 */
async function follow(t: TestTenant, cursor: string | undefined, count: number, env: 'live' | 'sandbox' = 'live') {
  const changes: Change[] = [];
  await waitUntil(async () => {
    const page = await read(t, cursor, '', env);
    changes.push(...page.changes);
    cursor = page.nextCursor;
    return changes.length >= count;
  }, `${count} changes`);
  return { changes, nextCursor: cursor as string };
}

describe('GET /v1/leads/changes', () => {
  it('starts with every lead, then gives each change after the cursor once, a deleted lead by its ID', async () => {
    const t = await newTenant(stack.db);
    const [a, b, c] = [await create(t), await create(t), await create(t)];
    const first = await follow(t, undefined, 3);
    expect(seen(first.changes)).toEqual([`changed ${a.id}`, `changed ${b.id}`, `changed ${c.id}`]);

    const quiet = await stack.http().get(`/v1/leads/changes?cursor=${first.nextCursor}`).set(t.live).expect(200);
    expect([quiet.body.data, quiet.body.message]).toEqual([
      { changes: [], nextCursor: first.nextCursor, hasMore: false },
      'No changes after this cursor yet',
    ]);

    await stack.http().patch(`/v1/leads/${a.id}`).set(t.live).send({ score: 40 }).expect(200);
    await stack.http().patch(`/v1/leads/${a.id}`).set(t.live).send({ score: 41 }).expect(200);
    await stack.http().delete(`/v1/leads/${b.id}`).set(t.live).expect(200);
    const after = await follow(t, first.nextCursor, 2);
    expect(seen(after.changes)).toEqual([`changed ${a.id}`, `deleted ${b.id}`]);
    expect(after.changes[0].lead?.score).toBe(41);
    expect(Date.parse(after.changes[1].deletedAt as string)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('pages by limit, each answer starting where the one before ended', async () => {
    const t = await newTenant(stack.db);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await create(t)).id);
    await follow(t, undefined, 5);
    const walked: string[] = [];
    let cursor: string | undefined;
    for (let more = true; more;) {
      const page = await read(t, cursor, 'limit=2');
      expect(page.changes.length).toBe(walked.length < 4 ? 2 : 1);
      walked.push(...page.changes.map((c) => c.lead?.id as string));
      [cursor, more] = [page.nextCursor, page.hasMore];
    }
    expect(walked).toEqual(ids);
  });

  it("reads only its own tenant's and environment's changes", async () => {
    const t = await newTenant(stack.db);
    const other = await newTenant(stack.db);
    const mine = await create(t);
    const sandboxed = await create(t, {}, 'sandbox');
    const theirs = await create(other);
    await stack.http().delete(`/v1/leads/${theirs.id}`).set(other.live).expect(200);
    const last = await create(t);
    expect(seen((await follow(t, undefined, 2)).changes)).toEqual([`changed ${mine.id}`, `changed ${last.id}`]);
    expect(seen((await follow(t, undefined, 1, 'sandbox')).changes)).toEqual([`changed ${sandboxed.id}`]);
    // Another tenant's cursor is only a place in the feed: it shows this tenant's changes after it.
    const afterMine = (await read(t, undefined, 'limit=1')).nextCursor;
    expect(seen((await follow(other, afterMine, 1)).changes)).toEqual([`deleted ${theirs.id}`]);
  });

  it('holds back a change while a transaction before it is still open, and gives both once it commits', async () => {
    const t = await newTenant(stack.db);
    const [slow, fast] = [await create(t, { lastName: 'Slow' }), await create(t, { lastName: 'Fast' })];
    const start = (await follow(t, undefined, 2)).nextCursor;
    // A change whose transaction began first and commits last: updatedFrom, by its start time, would
    // have been passed over by a poll made between the two commits.
    const open = stack.db.createQueryRunner();
    await open.startTransaction();
    try {
      await open.query(`UPDATE leads SET score = 7, updated_at = now() WHERE id = $1`, [decodeId('lead', slow.id)]);
      await stack.http().patch(`/v1/leads/${fast.id}`).set(t.live).send({ score: 9 }).expect(200);
      expect(await read(t, start)).toEqual({ changes: [], nextCursor: start, hasMore: false });
      await open.commitTransaction();
    } finally {
      await open.release();
    }
    const after = await follow(t, start, 2);
    expect(seen(after.changes)).toEqual([`changed ${slow.id}`, `changed ${fast.id}`]);
    expect(after.changes.map((c) => c.lead?.score)).toEqual([7, 9]);
  });

  it('moves no lead for a write the API does not show, and reports a lead merged away as deleted', async () => {
    const t = await newTenant(stack.db);
    const [keep, gone] = [await create(t), await create(t, { phone: '+44 20 7946 0958' })];
    const start = (await follow(t, undefined, 2)).nextCursor;
    // The duplicate check's bookkeeping changes no field a client sees (nor updated_at): the next
    // change after it is the lead created after it.
    await stack.db.query(`UPDATE leads SET duplicates_checked_at = now() WHERE id = $1`, [decodeId('lead', keep.id)]);
    const marker = await create(t);
    const next = await follow(t, start, 1);
    expect(seen(next.changes)).toEqual([`changed ${marker.id}`]);
    // The survivor takes the duplicate's phone: both in the merge's one transaction, by lead ID.
    await stack.http().post(`/v1/leads/${keep.id}/merge`).set(t.live).send({ duplicateId: gone.id }).expect(200);
    const merged = await follow(t, next.nextCursor, 2);
    expect(seen(merged.changes).sort()).toEqual([`changed ${keep.id}`, `deleted ${gone.id}`].sort());
  });

  it('answers a cursor it did not give with a 400 that says what to pass', async () => {
    const t = await newTenant(stack.db);
    for (const cursor of ['chg_nope', 'abc', (await read(t)).nextCursor.slice(0, -1)]) {
      const res = await stack.http().get(`/v1/leads/changes?cursor=${cursor}`).set(t.live);
      expect([res.status, res.body.errors]).toEqual([
        400,
        [
          {
            field: 'cursor',
            message:
              "Not a cursor of this feed: pass an answer's nextCursor as it was given, or leave cursor out to start from the beginning",
          },
        ],
      ]);
    }
    const tooMany = await stack.http().get('/v1/leads/changes?limit=1001').set(t.live);
    expect([tooMany.status, tooMany.body.errors[0].field]).toEqual([400, 'limit']);
  });
});

const DAY_MS = 24 * 3600_000;
const RETENTION = { olderThanMs: 30 * DAY_MS };
/** Backdates the deletions of these leads (API IDs) by `days`. */
const ageDeletions = (ids: string[], days: number) =>
  stack.db.query(`UPDATE lead_deletions SET deleted_at = now() - make_interval(days => $2) WHERE lead_id = ANY($1::bigint[])`, [
    ids.map((id) => decodeId('lead', id)),
    days,
  ]);
const horizonOf = async (t: TestTenant, env = 'live', feed = 'leads') =>
  (
    await stack.db.query(
      `SELECT pruned_through_xid::text AS xid, pruned_through_id::text AS id FROM change_feed_horizons WHERE feed = $3 AND tenant_id = $1 AND environment = $2`,
      [t.tenant.id, env, feed],
    )
  )[0] as { xid: string; id: string } | undefined;
const changesStatus = async (t: TestTenant, cursor: string) =>
  (await stack.http().get(`/v1/leads/changes?cursor=${cursor}`).set(t.live)).status;

describe('deleted leads past their retention', () => {
  it('are pruned, and a cursor from before the last one pruned is refused with a 410 that says to sync again', async () => {
    const t = await newTenant(stack.db);
    const sandboxed = await create(t, {}, 'sandbox');
    const [a, b, kept] = [await create(t), await create(t), await create(t)];
    const before = (await follow(t, undefined, 3)).nextCursor;
    // Before the live deletions in the feed's order, but of another scope, whose horizon this is not.
    const sandboxFirst = await follow(t, undefined, 1, 'sandbox');
    expect(seen(sandboxFirst.changes)).toEqual([`changed ${sandboxed.id}`]);
    await stack.http().delete(`/v1/leads/${a.id}`).set(t.live).expect(200);
    await stack.http().delete(`/v1/leads/${b.id}`).set(t.live).expect(200);
    const afterAll = (await follow(t, before, 2)).nextCursor;
    await ageDeletions([a.id], 31);
    await ageDeletions([b.id], 29);

    expect((await pruneDeletions(stack.db, RETENTION)).deleted).toBeGreaterThanOrEqual(1);
    const left = await stack.db.query(`SELECT lead_id::text AS id FROM lead_deletions WHERE tenant_id = $1`, [t.tenant.id]);
    expect(left).toEqual([{ id: decodeId('lead', b.id) }]);

    const res = await stack.http().get(`/v1/leads/changes?cursor=${before}`).set(t.live);
    expect([res.status, res.body.message, res.body.errors]).toEqual([
      410,
      'This cursor is older than the deleted leads the feed keeps, so some deletions after it can no longer be listed. Sync again from the start: leave cursor out, and treat the leads you hold that the new sync does not list as deleted.',
      [{ field: 'cursor', message: 'Expired: read again without a cursor' }],
    ]);
    // From the start, the feed lists every lead there is, and the deletions it still keeps.
    expect(seen((await follow(t, undefined, 2)).changes)).toEqual([`changed ${kept.id}`, `deleted ${b.id}`]);
    // A cursor at the pruned deletion or after it missed nothing; one just before it did.
    const horizon = (await horizonOf(t)) as { xid: string; id: string };
    expect(horizon.id).toBe(decodeId('lead', a.id));
    expect(await changesStatus(t, encodeChangeCursor(horizon))).toBe(200);
    expect(await changesStatus(t, encodeChangeCursor({ ...horizon, id: String(BigInt(horizon.id) - 1n) }))).toBe(410);
    expect(await changesStatus(t, afterAll)).toBe(200);
    const sandbox = await stack.http().get(`/v1/leads/changes?cursor=${sandboxFirst.nextCursor}`).set(t.sandbox).expect(200);
    expect(sandbox.body.data.changes).toEqual([]);
  });

  it("moves a scope's horizon only forward, in batches, and leaves younger deletions", async () => {
    const t = await newTenant(stack.db);
    const leads = [await create(t), await create(t), await create(t)];
    for (const lead of leads) await stack.http().delete(`/v1/leads/${lead.id}`).set(t.live).expect(200);
    await ageDeletions(
      leads.map((l) => l.id),
      40,
    );
    expect((await pruneDeletions(stack.db, { ...RETENTION, batchSize: 1, maxBatches: 10 })).deleted).toBeGreaterThanOrEqual(3);
    const horizon = await horizonOf(t);
    expect(horizon?.id).toBe(decodeId('lead', leads[2].id));
    // An older deletion pruned later (a row another prune had skipped) does not move it back. (Its
    // lead ID is far past any the tests create: a real lead's deletion must never meet it.)
    await stack.db.query(
      `INSERT INTO lead_deletions (lead_id, tenant_id, environment, change_xid, deleted_at) VALUES ($1, $2, 'live', 1, now() - interval '40 days')`,
      [String(9_000_000_000_000_000n + BigInt(t.tenant.id)), t.tenant.id],
    );
    await pruneDeletions(stack.db, RETENTION);
    expect(await horizonOf(t)).toEqual(horizon);
    expect(await horizonOf(t, 'sandbox')).toBeUndefined();
  });

  it('runs as a workflow on the worker, from an hourly schedule that carries the retention', async () => {
    const t = await newTenant(stack.db);
    const lead = await create(t);
    await stack.http().delete(`/v1/leads/${lead.id}`).set(t.live).expect(200);
    await ageDeletions([lead.id], 8);
    const result = await stack.client.workflow.execute(changeFeedPurgeWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: `change-feed-purge-test-${Date.now()}`,
      args: [{ olderThanMs: 7 * DAY_MS }],
    });
    expect(result.deleted).toBeGreaterThanOrEqual(1);
    expect((await horizonOf(t))?.id).toBe(decodeId('lead', lead.id));

    const first = await ensureChangeFeedPurgeSchedule(stack.client, stack.taskQueue, 30);
    const again = await ensureChangeFeedPurgeSchedule(stack.client, stack.taskQueue, 30);
    const changed = await ensureChangeFeedPurgeSchedule(stack.client, stack.taskQueue, 90);
    expect([first.created, again.created, again.updated, changed.updated]).toEqual([true, false, false, true]);
    const handle = stack.client.schedule.getHandle(changeFeedPurgeScheduleId(stack.taskQueue));
    const description = await handle.describe();
    expect(description.spec.intervals?.[0].every).toBe(3600_000);
    expect(description.action).toMatchObject({ workflowType: 'changeFeedPurgeWorkflow', args: [{ olderThanMs: 90 * DAY_MS }] });
    await handle.delete();
  });
});

describe('GET /v1/opportunities/changes', () => {
  interface DealChange {
    type: 'changed' | 'deleted';
    opportunity?: { id: string; name: string; leadId: string | null };
    id?: string;
  }
  const readDeals = async (t: TestTenant, cursor?: string) =>
    (
      await stack
        .http()
        .get(`/v1/opportunities/changes${cursor ? `?cursor=${cursor}` : ''}`)
        .set(t.live)
        .expect(200)
    ).body.data as {
      changes: DealChange[];
      nextCursor: string;
    };
  /** The deals' changes after `cursor` once at least `count` have come (see follow). */
  async function followDeals(t: TestTenant, cursor: string | undefined, count: number) {
    const changes: DealChange[] = [];
    await waitUntil(async () => {
      const page = await readDeals(t, cursor);
      changes.push(...page.changes);
      cursor = page.nextCursor;
      return changes.length >= count;
    }, `${count} deal changes`);
    return { changes, nextCursor: cursor as string };
  }
  const dealsSeen = (changes: DealChange[]) => changes.map((c) => `${c.type} ${c.type === 'changed' ? c.opportunity?.name : c.id}`);
  const deal = async (t: TestTenant, fields: Record<string, unknown>) =>
    (
      await stack
        .http()
        .post('/v1/opportunities')
        .set(t.live)
        .send({ value: 1, ...fields })
        .expect(201)
    ).body.data as { id: string };

  it("gives each deal's change once, a deleted one by its ID, and a deal a merge moved to the surviving lead", async () => {
    const t = await newTenant(stack.db);
    const other = await newTenant(stack.db);
    const [keep, gone] = [await create(t), await create(t)];
    const first = await deal(t, { name: 'First' });
    const second = await deal(t, { name: 'Second', leadId: gone.id });
    await deal(other, { name: 'Theirs' });
    const start = await followDeals(t, undefined, 2);
    expect(dealsSeen(start.changes)).toEqual(['changed First', 'changed Second']);

    await stack.http().patch(`/v1/opportunities/${second.id}`).set(t.live).send({ name: 'Second, renamed' }).expect(200);
    await stack.http().delete(`/v1/opportunities/${first.id}`).set(t.live).expect(200);
    const after = await followDeals(t, start.nextCursor, 2);
    expect(dealsSeen(after.changes)).toEqual(['changed Second, renamed', `deleted ${first.id}`]);

    // A merge re-points the duplicate's deals at the survivor: the deal changed (its leadId), so it moves.
    await stack.http().post(`/v1/leads/${keep.id}/merge`).set(t.live).send({ duplicateId: gone.id }).expect(200);
    const merged = await followDeals(t, after.nextCursor, 1);
    expect(merged.changes.map((c) => [c.opportunity?.id, c.opportunity?.leadId])).toEqual([[second.id, keep.id]]);
    // Neither tenant sees the other's deals; the deals' feed lists no lead.
    expect(dealsSeen((await followDeals(other, undefined, 1)).changes)).toEqual(['changed Theirs']);
  });

  it("prunes deleted deals past their retention with their own horizon, apart from the leads' feed", async () => {
    const t = await newTenant(stack.db);
    await create(t);
    const leadCursor = (await follow(t, undefined, 1)).nextCursor;
    const old = await deal(t, { name: 'Old' });
    const before = (await followDeals(t, undefined, 1)).nextCursor;
    await stack.http().delete(`/v1/opportunities/${old.id}`).set(t.live).expect(200);
    await stack.db.query(`UPDATE opportunity_deletions SET deleted_at = now() - interval '31 days' WHERE opportunity_id = $1`, [
      decodeId('opportunity', old.id),
    ]);
    expect((await pruneDeletions(stack.db, RETENTION)).deleted).toBeGreaterThanOrEqual(1);
    expect((await horizonOf(t, 'live', 'opportunities'))?.id).toBe(decodeId('opportunity', old.id));
    const res = await stack.http().get(`/v1/opportunities/changes?cursor=${before}`).set(t.live);
    expect([res.status, res.body.message]).toEqual([
      410,
      'This cursor is older than the deleted opportunities the feed keeps, so some deletions after it can no longer be listed. Sync again from the start: leave cursor out, and treat the opportunities you hold that the new sync does not list as deleted.',
    ]);
    // The leads' feed pruned nothing of this scope: its cursor from before the deal still reads.
    expect(await horizonOf(t)).toBeUndefined();
    expect(await changesStatus(t, leadCursor)).toBe(200);
  });
});

it("reads the feed's index in its statement's generic plan, on a large never-analyzed table", async () => {
  const scope = { tenantId: '1', environment: 'live' as const };
  const leads = `INSERT INTO leads (id, tenant_id, environment, email, email_normalized, first_name, last_name, status, created_at)
    OVERRIDING SYSTEM VALUE SELECT g, CASE WHEN g % 10 = 0 THEN 2 ELSE 1 END, 'live', 'l' || g || '@x.io', 'l' || g || '@x.io', 'L', 'L',
      (ARRAY['new', 'contacted'])[1 + g % 2], now() - g * interval '1 minute'`;
  const plan = await withLargeTable(
    stack.db,
    'leads',
    leads,
    genericPlan(scope, (q) => changesSql(q, LEAD_FEED, FEED_START, 100)),
  );
  // Both sides read in the feed's order from their indexes, merged without sorting either.
  expect(plan).toMatch(
    /Index (Only )?Scan using \S+ on leads r\s+.*\n\s+Index Cond: \(\(tenant_id = \$\d+\) AND .*ROW\(change_xid, id\) >/,
  );
  expect(plan).toMatch(
    /Index Scan using \S+ on lead_deletions d\s+.*\n\s+Index Cond: \(\(tenant_id = \$\d+\) AND .*ROW\(change_xid, lead_id\) >/,
  );
  expect(plan).toMatch(/Merge Append/);
  expect(plan).not.toMatch(/Seq Scan|-> {2}Sort /);
});
