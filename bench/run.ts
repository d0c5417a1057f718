/**
 * `npm run bench`: each target against a same-run baseline on loopback, interleaved B,T,B,T,B,T,
 * reporting the median ratio. Machines here are noisy; only ratios mean anything.
 *
 * The service runs as it ships (bench/shipped.ts): first `npm run api` + `npm run worker` as two
 * processes from dist/, then `npm start`'s all-in-one command, each with production settings, against
 * the same embedded PostgreSQL and Temporal dev server as the baselines. One table per layout in
 * bench/results/latest.json and latest.md.
 *
 * Usage: node dist/bench/run.js [seconds per run, default 3] [only these targets, e.g. T2,T4-open]
 * BENCH_LAYOUTS=split or all-in-one measures one layout; BENCH_CPU_PROF=<dir> profiles the service's processes;
 * BENCH_T8_ROWS=<n> makes the T8 file smaller while profiling.
 */
import './secrets'; // first: sets this run's production secrets before lib/config is read
import { fork, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client, Connection } from '@temporalio/client';
import { initializeDatabase } from '../db/data-source';
import { createWebhook } from '../domain/webhooks/endpoints';
import { encodeId } from '../lib/ids';
import { PROJECT_ROOT } from '../lib/paths';
import { TASK_QUEUE } from '../lib/temporal/task-queues';
import { workflowIds } from '../workflows/ids';
import { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { createDomainContext } from '../domain/context';
import { createBenchTenant, startBenchStack } from './fixture';
import { cpuTable, machineInfo, markdownTable, writeResults, type LayoutResult, type TargetResult } from './report';
import { cpuMeter, medianCpu } from './process-cpu';
import { untilQuiet } from './quiet';
import { median, percentile, twoPlaces, type Sample } from './sample';
import { cpuProfArgs, startAllInOne, startApi, startWorker, type ShippedContext, type ShippedProcess } from './shipped';
import { copyIntoBareTable, importThroughApi, settleAfterImport, T8_ROWS, writeLeadsCsv } from './import-target';
import { WARMUP, warmUp } from './warmup';
import { bareSignals, bareStarts, oneActivityCompletions, pool, BASELINE_QUEUE, Receiver, webhookDeliveries } from './temporal-targets';

const DURATION = Number(process.argv[2] ?? 3);
/**
 * Targets that measure what another one sets up: T5-signal signals the workflows T5-enroll starts,
 * and T5-signal-direct those T5-signal tops up.
 */
const NEEDS: Record<string, string> = { 'T5-signal': 'T5-enroll', 'T5-signal-direct': 'T5-signal' };
const withNeeds = (id: string): string[] => (NEEDS[id] ? [...withNeeds(NEEDS[id]), id] : [id]);
/**
 * Optional comma-separated target ids (e.g. T2,T4-open) to measure only those while profiling,
 * with the targets they need (alone, T5-signal had no workflow to signal and measured failures).
 */
const ONLY = process.argv[3]?.split(',').flatMap(withNeeds);
const LAYOUTS = (process.env.BENCH_LAYOUTS ?? 'split,all-in-one').split(',');
const CONNECTIONS = 50;
const ROUNDS = 3;

type BareMode = 'bare-json' | 'bare-insert' | 'bare-select';
interface Case {
  id: string;
  /** What the two sides are, for the report. */
  what: string;
  goal: number;
  /** At most this many times the baseline's p99 (same round's medians). */
  p99Factor?: number;
  p95Goal?: number;
  expected?: '2xx' | '3xx';
  /** Rounds of this target (default ROUNDS): T8 imports a million rows, once. */
  rounds?: number;
  /** Run once before the first round, unmeasured. */
  setup?: () => Promise<void>;
  /** Measured only when named (ONLY): it explains another target rather than being one of the goals. */
  diagnostic?: boolean;
  baseline: (round: number) => Promise<Sample>;
  target: (round: number) => Promise<Sample>;
}

/** What to stop on Ctrl-C or a failure: PostgreSQL, Temporal and the child processes would otherwise outlive the run. */
const cleanups: (() => Promise<unknown>)[] = [];
const stopAll = () => Promise.allSettled(cleanups.reverse().map((f) => f()));

const log = (msg: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

/** A bare baseline server in its own process (bench/servers.ts), started once and reused by every round. */
async function startBare(mode: BareMode, dbUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(path.join(__dirname, 'servers.js'), [JSON.stringify({ mode, dbUrl })]);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`server ${mode} exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/** SIGTERM, resolved once the child has exited (the baseline worker must leave before Temporal stops, or it retries forever). */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** The baselines' worker for T5 and T6 (bench/worker.ts); resolves once it polls. */
async function startBaselineWorker(temporalAddress: string): Promise<ChildProcess> {
  const child = fork(path.join(__dirname, 'worker.js'), [JSON.stringify({ temporalAddress, taskQueue: BASELINE_QUEUE })], {
    execArgv: [...process.execArgv, ...cpuProfArgs('bare-worker')],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`baseline worker exited with ${code}`)));
  });
  return child;
}

interface MeasureOptions {
  expected?: '2xx' | '3xx';
  /** Items each request carries (T7: 100 leads), for the warm-up's count. */
  itemsPerRequest?: number;
  /** At most this many requests in the measured part (T5-signal: one per workflow); requests/s then over the time they took. */
  maxRequests?: number;
  /** Runs between the warm-up and the measured part (warmUp's `settle`). */
  settle?: () => Promise<void>;
}

/** One autocannon run after the warm-up (bench/warmup.ts); counts answers outside `expected` (and connection errors) as errors. */
async function measure(base: string, request: Record<string, unknown>, opts: MeasureOptions = {}): Promise<Sample> {
  const { expected = '2xx', itemsPerRequest = 1, maxRequests, settle } = opts;
  const { path: requestPath = '/', ...rest } = request as { path?: string };
  const url = base + requestPath;
  await warmUp(
    async (duration, maxOverallRequests) =>
      (
        await autocannon({
          url,
          connections: WARMUP.concurrency,
          duration,
          ...(maxOverallRequests ? { maxOverallRequests } : {}),
          ...rest,
        } as autocannon.Options)
      ).requests.total,
    itemsPerRequest,
    settle,
  );
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: DURATION,
    ...(maxRequests ? { maxOverallRequests: maxRequests } : {}),
    ...rest,
  } as autocannon.Options);
  const counts = Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [Number(code), (s as { count: number }).count] as const);
  const ok = expected === '2xx' ? (c: number) => c >= 200 && c < 300 : (c: number) => c >= 300 && c < 400;
  const unexpected = counts.filter(([c]) => !ok(c)).reduce((a, [, n]) => a + n, 0);
  return {
    rps: maxRequests ? r.requests.total / r.duration : r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: unexpected + r.errors + r.timeouts,
    serverErrors: r['5xx'],
  };
}

const summarize = (s: Sample[]): Sample => ({
  rps: Math.round(median(s.map((x) => x.rps))),
  ...(s.some((x) => x.cpu) ? { cpu: medianCpu(s.map((x) => x.cpu ?? {})) } : {}),
  p50: median(s.map((x) => x.p50)),
  p99: median(s.map((x) => x.p99)),
  ...(s.some((x) => x.p95 !== undefined) ? { p95: median(s.map((x) => x.p95 ?? 0)) } : {}),
  errors: s.reduce((a, x) => a + x.errors, 0),
  serverErrors: s.reduce((a, x) => a + x.serverErrors, 0),
});

/** Inserts `count` fresh leads for the tenant and returns their public IDs. */
async function freshLeads(db: Awaited<ReturnType<typeof initializeDatabase>>, tenantId: string, count: number): Promise<string[]> {
  const rows: { id: string }[] = await db.query(
    `INSERT INTO leads (tenant_id, environment, email, email_normalized, first_name, last_name, duplicates_checked_at)
     SELECT $1, 'live', e, e, 'Bench', 'Lead', now() FROM (SELECT 'enroll-' || gen_random_uuid() || '@example.com' AS e FROM generate_series(1, $2)) s
     RETURNING id`,
    [tenantId, count],
  );
  return rows.map((r) => encodeId('lead', r.id));
}

/**
 * Waits until the service's background work for the bench tenant is done: leads still to check for
 * duplicates, enrollments not yet at their engagement condition. Without it a measurement competes
 * with the workflows the one before started (T5-signal measured during T5-enroll's starts, whose
 * enrollments are not even signalled yet), and a baseline with the target before it. Then it waits
 * for the machine to be quiet (untilQuiet): T5-signal's target ran beside the bare worker still
 * working through the baseline's signals.
 */
async function settle(db: Awaited<ReturnType<typeof initializeDatabase>>, tenantId: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const [{ pending }] = (await db.query(
      `SELECT (SELECT count(*) FROM leads WHERE tenant_id = $1 AND duplicates_checked_at IS NULL)
        + (SELECT count(*) FROM campaign_enrollments WHERE tenant_id = $1 AND status = 'active' AND engagement_signals_until IS NULL) AS pending`,
      [tenantId],
    )) as { pending: string }[];
    if (Number(pending) === 0) break;
    if (Date.now() > deadline) {
      log(`settle: ${pending} leads or enrollments still pending after 120 s; measuring anyway`);
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await untilQuiet(60_000, log);
}

/**
 * One run, with the CPU each process spent on it per operation: counted from the end of its
 * warm-up until the machine is settled again, so what it queued counts too. That settle is also
 * the next run's: only a case's first run needs one before it (runCases, after the case's setup).
 */
async function metered(settled: () => Promise<void>, run: () => Promise<Sample>): Promise<Sample> {
  cpuMeter.begin();
  const sample = await run();
  cpuMeter.measured();
  await settled();
  const cpu = cpuMeter.end(sample.rps);
  return cpu ? { ...sample, cpu } : sample;
}

async function runCases(cases: Case[], service: ShippedProcess[], settled: () => Promise<void>): Promise<Record<string, TargetResult>> {
  const targets: Record<string, TargetResult> = {};
  for (const c of cases.filter((x) => (ONLY ? ONLY.includes(x.id) : !x.diagnostic))) {
    for (const p of service) p.assertRunning();
    const b: Sample[] = [];
    const t: Sample[] = [];
    const rounds = c.rounds ?? ROUNDS;
    await c.setup?.();
    await settled();
    for (let round = 1; round <= rounds; round++) {
      log(`${c.id} round ${round}/${rounds}: baseline ...`);
      b.push(await metered(settled, () => c.baseline(round)));
      log(`${c.id} round ${round}/${rounds}: target ...`);
      t.push(await metered(settled, () => c.target(round)));
    }
    const raw = median(t.map((x, i) => x.rps / b[i].rps));
    const ratio = twoPlaces(raw);
    const target = summarize(t);
    const baseline = summarize(b);
    const met =
      ratio >= c.goal &&
      (c.p99Factor === undefined || target.p99 <= c.p99Factor * baseline.p99) &&
      (c.p95Goal === undefined || (target.p95 ?? Infinity) <= c.p95Goal) &&
      target.errors === 0 &&
      baseline.errors === 0;
    targets[c.id] = {
      what: c.what,
      baseline,
      target,
      ratio,
      goal: c.goal,
      ...(c.p99Factor ? { p99Goal: `<= ${c.p99Factor}x baseline` } : {}),
      ...(c.p95Goal ? { p95Goal: c.p95Goal } : {}),
      expected: c.expected ?? '2xx',
      met,
    };
    log(`${c.id}: ratio ${ratio} (goal ${c.goal}), errors ${baseline.errors} / ${target.errors} -> ${met ? 'met' : 'MISSED'}`);
  }
  return targets;
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const work = mkdtempSync(path.join(os.tmpdir(), 'lead-bench-'));
  chmodSync(work, 0o755);
  log(`work directory (service logs): ${work}`);
  const stack = await startBenchStack(work, cleanups, log);
  const { db, dbUrl, temporalAddress } = stack;
  const { created, leadId, key, pixel, click } = await createBenchTenant(db);
  const shippedCtx: ShippedContext = { dbUrl, temporalAddress, workDir: work };
  const tenantScope = { tenantId: created.tenant.id, environment: 'live' as const };
  let n = 0;
  const leadBody =
    (extra: Record<string, unknown> = {}) =>
    () =>
      JSON.stringify({ email: `bench-${process.pid}-${++n}@example.com`, firstName: 'Bench', lastName: 'Mark', ...extra });

  log('starting the baselines (bare Express servers, a bare Temporal worker) ...');
  const bare = {
    'bare-json': await startBare('bare-json', dbUrl),
    'bare-insert': await startBare('bare-insert', dbUrl),
    'bare-select': await startBare('bare-select', dbUrl),
  };
  const baselineWorker = await startBaselineWorker(temporalAddress);
  const stopBaselines = () => Promise.all([...Object.values(bare).map((b) => b.child), baselineWorker].map(stopChild));
  cleanups.push(stopBaselines);
  const bareHttp = (mode: BareMode, request: Record<string, unknown>) => () => measure(bare[mode].url, request);
  const bareInsert = {
    method: 'POST',
    path: '/leads',
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (r: Record<string, unknown>) => ({ ...r, body: leadBody({ tenantId: created.tenant.id })() }) }],
  };

  // T5 and T6 talk to Temporal from this process; the service's worker (shipped) delivers T6's webhooks.
  const client = new Client({ connection: await Connection.connect({ address: temporalAddress }), namespace: 'default' });
  const bareStarted: string[] = [];
  const receiver = new Receiver();
  const hookUrl = await receiver.start();
  const webhookStarter = new WorkflowStarter(client, TASK_QUEUE);
  await createWebhook(
    createDomainContext({
      db,
      workflows: webhookStarter,
      scope: tenantScope,
      actorUserId: created.user.id,
      webhooks: { allowPrivateTargets: true },
    }),
    { url: hookUrl, events: ['lead.updated'] },
  );
  const ENROLL_N = 300;
  /**
   * Workflows T5-signal signals on each side, in turn. Temporal gives a workflow's signals that
   * arrive while its last workflow task still waits one task together, for about the price of one.
   * An enrollment hears of an event or two in days, each a task of its own, so each run signals a
   * workflow at most once after its warm-up's tasks are done (bareSignals, measure's maxRequests):
   * with 2,000 workflows a side signalled round and round for the run instead, the bare client
   * outran its worker and got 660 signals into 420 tasks, while the API's events, slower to
   * arrive, got one task each (60 histories a side). Few enough that both workers keep them all
   * in their cache (about 2,300 by default here, by heap size).
   */
  const SIGNAL_POOL = 2000;
  /** Until the workers have run what the warm-up's signals queued. */
  const untilDrained = () => untilQuiet(60_000, log);
  const T6_N = 120;
  let t6BaselineRps = 10;
  let campaignId: string | undefined;
  let t8File = '';

  /**
   * T5-signal's event: an open of an enrolled lead that names the lead's enrollment, which is then
   * signalled whatever it waits for. Found by its lead alone, an open is signalled only to an
   * enrollment waiting for opens (docs/decisions.md, "Engagement signals"), and the first one would
   * decide it: the bench campaign waits for a click, so each open is signalled and decides nothing.
   */
  const openNamingItsEnrollment = (leadId: string) =>
    JSON.stringify({ eventType: 'email_open', leadId, workflowExecutionId: workflowIds.campaignEnrollment(campaignId as string, leadId) });

  /** The targets against one running layout (its name keeps workflow IDs apart); `app` is its API's base URL. */
  const cases = (layout: string, app: string): Case[] => {
    const enrolled: string[] = [];
    /** Enrolls `count` fresh leads in the bench campaign, 25 a request and 3 requests at once. */
    const enrollThroughApi = async (count: number): Promise<Sample> => {
      const leadIds = await freshLeads(db, created.tenant.id, count);
      const batches = Array.from({ length: Math.ceil(count / 25) }, (_, i) => leadIds.slice(i * 25, i * 25 + 25));
      let errors = 0;
      let serverErrors = 0;
      const t0 = performance.now();
      const latencies = await pool(batches.length, 3, async (i) => {
        const res = await fetch(`${app}/v1/campaigns/${campaignId}/enrollments`, {
          method: 'POST',
          headers: key,
          body: JSON.stringify({ leadIds: batches[i] }),
        });
        const body = (await res.json()) as { data?: { status: string }[] };
        const ok = body.data?.filter((r) => r.status === 'enrolled').length ?? 0;
        errors += res.ok ? batches[i].length - ok : batches[i].length;
        if (res.status >= 500) serverErrors++;
      });
      enrolled.push(...leadIds);
      return {
        rps: count / ((performance.now() - t0) / 1000),
        p50: percentile(latencies, 0.5),
        p99: percentile(latencies, 0.99),
        errors,
        serverErrors,
      };
    };
    return [
      {
        id: 'T1',
        what: 'bare Express GET JSON vs GET /healthz through the global middleware',
        goal: 0.7,
        baseline: bareHttp('bare-json', { path: '/json' }),
        target: () => measure(app, { path: '/healthz' }),
      },
      {
        id: 'T2',
        what: 'bare Express + pg prepared INSERT vs POST /v1/leads',
        goal: 0.5,
        p99Factor: 2,
        baseline: bareHttp('bare-insert', bareInsert),
        target: () =>
          measure(app, {
            method: 'POST',
            path: '/v1/leads',
            headers: key,
            requests: [{ setupRequest: (r: Record<string, unknown>) => ({ ...r, body: leadBody()() }) }],
          }),
      },
      {
        id: 'T2-dup',
        what: 'POST /v1/leads with distinct phones (T2) vs POST /v1/leads where every lead shares one phone (one large duplicate cluster)',
        goal: 0.8,
        baseline: () =>
          measure(app, {
            method: 'POST',
            path: '/v1/leads',
            headers: key,
            requests: [
              {
                setupRequest: (r: Record<string, unknown>) => ({
                  ...r,
                  body: leadBody({ phone: `+1 212 ${String(n).padStart(7, '0')}` })(),
                }),
              },
            ],
          }),
        target: () =>
          measure(app, {
            method: 'POST',
            path: '/v1/leads',
            headers: key,
            requests: [{ setupRequest: (r: Record<string, unknown>) => ({ ...r, body: leadBody({ phone: '+1 415 555 0123' })() }) }],
          }),
      },
      {
        id: 'T7',
        what: 'the T2 baseline (bare single-row INSERTs/s) vs leads/s through POST /v1/leads/batch, 100 per request (latencies per request)',
        goal: 5,
        baseline: bareHttp('bare-insert', bareInsert),
        target: async () => {
          const batchBody = () => JSON.stringify({ leads: Array.from({ length: 100 }, () => JSON.parse(leadBody()()) as unknown) });
          const s = await measure(
            app,
            {
              method: 'POST',
              path: '/v1/leads/batch',
              headers: key,
              requests: [{ setupRequest: (r: Record<string, unknown>) => ({ ...r, body: batchBody() }) }],
            },
            { itemsPerRequest: 100 },
          );
          return { ...s, rps: s.rps * 100 };
        },
      },
      {
        id: 'T3',
        what: 'bare Express + pg SELECT by key vs GET /v1/leads/:id',
        goal: 0.6,
        baseline: bareHttp('bare-select', { path: `/leads/${leadId}` }),
        target: () => measure(app, { path: `/v1/leads/${encodeId('lead', leadId)}`, headers: key }),
      },
      {
        id: 'T4-open',
        what: 'bare Express GET vs the open pixel',
        goal: 0.6,
        baseline: bareHttp('bare-json', { path: '/json' }),
        target: () => measure(app, { path: pixel }),
      },
      {
        id: 'T4-click',
        what: 'the T2 baseline vs the click redirect (a 3xx is its correct answer)',
        goal: 0.5,
        expected: '3xx',
        baseline: bareHttp('bare-insert', bareInsert),
        target: () => measure(app, { path: click }, { expected: '3xx' }),
      },
      {
        id: 'T5-enroll',
        what: `bare client starts/s (${CONNECTIONS} in flight) vs leads enrolled/s by POST /v1/campaigns/:id/enrollments (25 per request, 3 at once)`,
        goal: 0.8,
        baseline: async (round) => {
          const { sample, ids } = await bareStarts(client, `${layout}/${round}`, ENROLL_N, CONNECTIONS);
          bareStarted.push(...ids);
          return sample;
        },
        target: () => enrollThroughApi(ENROLL_N),
      },
      {
        id: 'T5-signal',
        what: `bare client signals/s to running workflows vs POST /v1/analytics/events of an open naming the lead's enrollment, which it signals`,
        goal: 0.8,
        setup: async () => {
          // A workflow a side for each signal of a run (see SIGNAL_POOL).
          log(`T5-signal: topping up to ${SIGNAL_POOL} workflows a side ...`);
          const { ids } = await bareStarts(client, `${layout}/pool`, Math.max(0, SIGNAL_POOL - bareStarted.length), CONNECTIONS);
          bareStarted.push(...ids);
          const topUp = enrolled.length < SIGNAL_POOL ? await enrollThroughApi(SIGNAL_POOL - enrolled.length) : null;
          // An event naming an enrollment that does not exist is stored and signals nothing: it would measure less.
          if (topUp?.errors) throw new Error(`T5-signal: ${topUp.errors} of the top-up's leads were not enrolled`);
        },
        baseline: () => bareSignals(client, bareStarted.slice(-SIGNAL_POOL), DURATION, CONNECTIONS, untilDrained),
        target: () =>
          measure(
            app,
            {
              method: 'POST',
              path: '/v1/analytics/events',
              headers: key,
              requests: [
                {
                  setupRequest: (r: Record<string, unknown>) => ({
                    ...r,
                    body: openNamingItsEnrollment(enrolled[++n % enrolled.length]),
                  }),
                },
              ],
            },
            { maxRequests: SIGNAL_POOL, settle: untilDrained },
          ),
      },
      {
        id: 'T5-signal-direct',
        what: "diagnostic: T5-signal without its API, the bare client signalling the bare workflows vs the service's enrollments",
        goal: 0.8,
        diagnostic: true,
        baseline: () => bareSignals(client, bareStarted.slice(-SIGNAL_POOL), DURATION, CONNECTIONS, untilDrained),
        target: () =>
          bareSignals(
            client,
            enrolled.slice(-SIGNAL_POOL).map((leadId) => workflowIds.campaignEnrollment(campaignId as string, leadId)),
            DURATION,
            CONNECTIONS,
            untilDrained,
          ),
      },
      {
        id: 'T6',
        what: "one-activity workflow completions/s vs webhook deliveries/s by the service's worker to a local receiver (p95: commit to 2xx at half the baseline rate)",
        goal: 0.7,
        p95Goal: 2000,
        baseline: async (round) => {
          const sample = await oneActivityCompletions(client, `${layout}/${round}`, T6_N, CONNECTIONS);
          t6BaselineRps = sample.rps;
          return sample;
        },
        // The latency goal holds at a steady rate the system can carry: half this round's baseline.
        target: () =>
          webhookDeliveries(
            { db, workflows: webhookStarter, scope: tenantScope, leadId: leadId, receiver },
            T6_N,
            CONNECTIONS,
            Math.max(1, t6BaselineRps / 2),
          ),
      },
      // Last: the million rows it writes leave autovacuum work that would slow every target after it.
      {
        id: 'T8',
        what: `COPY of a ${T8_ROWS.toLocaleString('en')}-row CSV into a bare table with the same columns vs POST /v1/leads/imports of the same file (rows/s; the latency columns are the total ms)`,
        goal: 0.25,
        rounds: 1,
        baseline: async (round) => {
          t8File = path.join(work, `t8-${layout}-${round}.csv`);
          await writeLeadsCsv(t8File, `t8-${layout}-${round}`, T8_ROWS);
          return copyIntoBareTable(dbUrl, t8File, `t8_copy_${round}`);
        },
        target: async () => {
          const sample = await importThroughApi(app, key, t8File);
          log(`T8: ${T8_ROWS} rows imported in ${(sample.p50 / 1000).toFixed(1)} s (${sample.rps} rows/s)`);
          rmSync(t8File, { force: true });
          log('T8: VACUUM (ANALYZE) of the database, so autovacuum does not run under the next measurements ...');
          await settleAfterImport(dbUrl);
          return sample;
        },
      },
    ];
  };

  const layouts: Record<string, LayoutResult> = {};
  const describe: Record<string, { title: string; how: string; start: () => Promise<ShippedProcess[]> }> = {
    split: {
      title: '`npm run api` + `npm run worker` (two processes)',
      how: '`node dist/api/server.js` and `node dist/workers/main.js`, NODE_ENV=production, LOG_LEVEL=info (access log on, written to a file), random 48-byte secrets, per-IP and auth-failure limits raised, an enterprise tenant with unlimited limits.',
      start: async () => [await startApi(shippedCtx), await startWorker(shippedCtx)],
    },
    'all-in-one': {
      title: '`npm start` (one command: the API, and the worker as its child process)',
      how: '`node dist/scripts/start.js` with the same settings, pointed at the same PostgreSQL and Temporal through DATABASE_URL and TEMPORAL_ADDRESS (so only the process layout differs; its own embedded servers would add nothing but their start-up).',
      start: async () => [await startAllInOne(shippedCtx)],
    },
  };
  for (const layout of LAYOUTS) {
    const d = describe[layout];
    if (!d) throw new Error(`BENCH_LAYOUTS: unknown layout ${layout} (split, all-in-one)`);
    log(`${layout}: starting ${d.title} (the worker bundles its workflows first) ...`);
    const procs = await d.start();
    const stopService = () => Promise.all(procs.map((p) => p.stop()));
    cleanups.push(stopService);
    try {
      campaignId ??= await activeCampaign(procs[0].url, key);
      layouts[layout] = {
        title: d.title,
        how: d.how,
        targets: await runCases(cases(layout, procs[0].url), procs, () => settle(db, created.tenant.id)),
      };
    } finally {
      log(`${layout}: stopping (logs in ${work}) ...`);
      for (const p of [...procs].reverse()) await p.stop();
      cleanups.splice(cleanups.indexOf(stopService), 1);
    }
    console.log(`\n${d.title}\n\n${markdownTable(layouts[layout].targets)}\n\n${cpuTable(layouts[layout].targets)}\n`);
  }

  await stopBaselines();
  await receiver.stop();
  await client.connection.close();
  const machine = machineInfo({ durationSeconds: DURATION, connections: CONNECTIONS, rounds: ROUNDS });
  if (ONLY || LAYOUTS.length < Object.keys(describe).length) {
    log('a subset was measured: bench/results/latest.* left as they were');
  } else {
    writeResults(path.join(PROJECT_ROOT, 'bench', 'results'), machine, layouts);
    log(`wrote bench/results/latest.json and latest.md`);
  }
  await stack.stop();
  if (!process.env.BENCH_KEEP_LOGS) rmSync(work, { recursive: true, force: true });
  log(`done in ${Math.round((Date.now() - startedAt) / 1000)} s`);
}

/**
 * An active campaign (trigger -> "clicked?" for a day -> end either way) created through the running
 * API. Its enrollments wait on an engagement condition, so T5-signal's opens, which name their
 * enrollment, are each signalled (an enrollment that only sleeps is not), and an open does not
 * decide it, so they stay active.
 */
async function activeCampaign(url: string, key: Record<string, string>): Promise<string> {
  const post = async (p: string, body: unknown) => {
    const res = await fetch(url + p, { method: 'POST', headers: key, body: JSON.stringify(body) });
    const json = (await res.json()) as { data: { id: string } };
    if (!res.ok) throw new Error(`${p}: ${res.status} ${JSON.stringify(json)}`);
    return json.data.id;
  };
  const workflowId = await post('/v1/workflows', {
    name: 'Bench clicked?',
    nodes: [
      { nodeId: 'start', type: 'trigger', position: { x: 0, y: 0 }, data: { triggerType: 'manual' } },
      {
        nodeId: 'clicked',
        type: 'condition',
        position: { x: 0, y: 100 },
        data: { conditionField: 'link_clicked', window: { duration: 1, durationUnit: 'days' } },
      },
      { nodeId: 'done', type: 'end', position: { x: 0, y: 200 }, data: {} },
    ],
    edges: [
      { edgeId: 'e1', source: 'start', target: 'clicked' },
      { edgeId: 'e2', source: 'clicked', target: 'done', branch: 'true' },
      { edgeId: 'e3', source: 'clicked', target: 'done', branch: 'false' },
    ],
  });
  return await post('/v1/campaigns', { name: 'Bench campaign', workflowId, status: 'active' });
}

process.once('SIGINT', () => {
  log('interrupted: stopping ...');
  void stopAll().then(() => process.exit(130));
});
main().catch(async (err) => {
  console.error(err);
  await stopAll();
  process.exit(1);
});
