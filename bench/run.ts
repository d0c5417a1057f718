/**
 * `npm run bench`: each target against a same-run baseline on loopback, interleaved B,T,B,T,B,T,
 * reporting the median ratio. Machines here are noisy; only ratios mean anything.
 * Writes bench/results/latest.json and latest.md.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { initializeDatabase } from '../db/data-source';
import { startEmbeddedPostgres } from '../db/embedded';
import { createTenant } from '../domain/tenants';
import { encodeId } from '../lib/ids';
import { PROJECT_ROOT } from '../lib/paths';
import { startDevServer } from '../lib/temporal/dev-server';
import { findTemporalBinary } from '../lib/temporal/find-binary';
import { Message, Tenant } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { signTrackingToken } from '../domain/communications/tracking-token';
import { config } from '../lib/config';
import { Client, Connection } from '@temporalio/client';
import { createWebhook } from '../domain/webhooks/endpoints';
import { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { createDomainContext } from '../domain/context';
import { percentile, type Sample } from './sample';
import { bareSignals, bareStarts, oneActivityCompletions, pool, ONE_ACTIVITY_QUEUE, Receiver, webhookDeliveries } from './temporal-targets';

const DURATION = Number(process.argv[2] ?? 8);
/** Optional comma-separated target ids (e.g. T2,T4-open) to measure only those while profiling. */
const ONLY = process.argv[3]?.split(',');
const CONNECTIONS = 50;
const ROUNDS = 3;

type Mode = 'bare-json' | 'bare-insert' | 'bare-select' | 'app';
interface Case {
  id: string;
  /** What the two sides are, for the report. */
  what: string;
  goal: number;
  p99Goal?: number;
  p95Goal?: number;
  baseline: (round: number) => Promise<Sample>;
  target: (round: number) => Promise<Sample>;
}

const log = (msg: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

async function startServer(mode: Mode, ctx: { dbUrl: string; temporalAddress: string }): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(path.join(__dirname, 'servers.js'), [JSON.stringify({ mode, ...ctx, taskQueue: 'bench' })], {
    env: { ...process.env, LOG_LEVEL: 'silent' },
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`server ${mode} exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/** A worker process for T6 (see bench/worker.ts); resolves once it polls. */
async function startWorker(
  mode: 'baseline' | 'real',
  ctx: { dbUrl: string; temporalAddress: string },
  taskQueue: string,
): Promise<ChildProcess> {
  const child = fork(path.join(__dirname, 'worker.js'), [JSON.stringify({ mode, ...ctx, taskQueue })], {
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`worker ${mode} exited with ${code}`)));
  });
  return child;
}

async function measure(mode: Mode, request: Record<string, unknown>, ctx: { dbUrl: string; temporalAddress: string }): Promise<Sample> {
  const { url: base, child } = await startServer(mode, ctx);
  const { path: requestPath = '/', ...rest } = request as { path?: string };
  const url = base + requestPath;
  try {
    await autocannon({ url, connections: 10, duration: 1, ...rest } as autocannon.Options); // warm-up
    const r = await autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration: DURATION, ...rest } as autocannon.Options);
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r['4xx'] + r['5xx'] };
  } finally {
    child.kill();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summarize = (s: Sample[]): Sample => ({
  rps: Math.round(median(s.map((x) => x.rps))),
  p50: median(s.map((x) => x.p50)),
  p99: median(s.map((x) => x.p99)),
  ...(s.some((x) => x.p95 !== undefined) ? { p95: median(s.map((x) => x.p95 ?? 0)) } : {}),
  errors: s.reduce((a, x) => a + x.errors, 0),
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

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'lead-bench-'));
  chmodSync(work, 0o755);
  log('starting embedded PostgreSQL and the Temporal dev server ...');
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(work, 'pg'),
    port: 54400 + Math.floor(Math.random() * 500),
    database: 'bench',
  });
  const temporal = await startDevServer({
    binary: findTemporalBinary('cli', undefined, log),
    dataDir: work,
    port: 7400 + Math.floor(Math.random() * 200),
    uiPort: 0,
    namespace: 'default',
    headless: true,
  });
  const db = await initializeDatabase({ url: pg.url, migrate: true });
  const created = await createTenant(db, { name: 'Bench', plan: 'enterprise' });
  await db.getRepository(Tenant).update({ id: created.tenant.id }, { customLimits: { monthlyCalls: 1e9, perMinute: 1e9, burst: 1e9 } });
  const lead = await db.query(
    `INSERT INTO leads (tenant_id, environment, email, email_normalized, first_name, last_name) VALUES ($1, 'live', 'b@x.io', 'b@x.io', 'B', 'X') RETURNING id`,
    [created.tenant.id],
  );
  const message = await scoped(db.manager, Message, { tenantId: created.tenant.id, environment: 'live' }).insert({
    channel: 'email',
    to: 'b@x.io',
    subject: 'Bench',
    body: 'Hi',
    status: 'sent',
    sandbox: false,
    marketing: true,
    leadId: lead[0].id,
    idempotencyKey: `bench-${Date.now()}`,
  });
  // Sent long ago, so hits are not flagged as machine traffic (prefetch within seconds of sending).
  await db.query(`UPDATE messages SET sent_at = now() - interval '1 day' WHERE id = $1`, [message.id]);
  const claims = { t: encodeId('tenant', created.tenant.id), e: 'live' as const, m: encodeId('message', message.id) };
  const pixel = `/v1/t/o/${signTrackingToken(config.TRACKING_SECRET, { k: 'o', ...claims })}`;
  const click = `/v1/t/c/${signTrackingToken(config.TRACKING_SECRET, { k: 'c', ...claims, u: 'https://example.com/pricing' })}`;
  const ctx = { dbUrl: pg.url, temporalAddress: temporal.address };
  const key = { 'x-api-key': created.liveKey, 'content-type': 'application/json' };
  const tenantScope = { tenantId: created.tenant.id, environment: 'live' as const };
  let n = 0;
  const leadBody =
    (extra: Record<string, unknown> = {}) =>
    () =>
      JSON.stringify({ email: `bench-${process.pid}-${++n}@example.com`, firstName: 'Bench', lastName: 'Mark', ...extra });
  const http = (c: Mode, request: Record<string, unknown>) => () => measure(c, request, ctx);
  const bareInsert = {
    method: 'POST',
    path: '/leads',
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (r: Record<string, unknown>) => ({ ...r, body: leadBody({ tenantId: created.tenant.id })() }) }],
  };

  // T5 and T6 talk to Temporal from this process; their workers run in processes of their own.
  const client = new Client({ connection: await Connection.connect({ address: temporal.address }), namespace: 'default' });
  const campaignId = await activeCampaign(ctx, key);
  const bareStarted: string[] = [];
  const enrolled: string[] = [];
  const receiver = new Receiver();
  const hookUrl = await receiver.start();
  const webhookQueue = 'bench-webhooks';
  const webhookStarter = new WorkflowStarter(client, webhookQueue);
  const domainCtx = createDomainContext({
    db,
    workflows: webhookStarter,
    scope: tenantScope,
    actorUserId: created.user.id,
    webhooks: { allowPrivateTargets: true },
  });
  await createWebhook(domainCtx, { url: hookUrl, events: ['lead.updated'] });
  const workers: ChildProcess[] = [];
  const ENROLL_N = 300;
  const T6_N = 200;
  let t6BaselineRps = 10;

  const cases: Case[] = [
    {
      id: 'T1',
      what: 'bare Express GET JSON vs GET /healthz through the global middleware',
      goal: 0.7,
      baseline: http('bare-json', { path: '/json' }),
      target: http('app', { path: '/healthz' }),
    },
    {
      id: 'T2',
      what: 'bare Express + pg prepared INSERT vs POST /v1/leads',
      goal: 0.5,
      p99Goal: 50,
      baseline: http('bare-insert', bareInsert),
      target: http('app', {
        method: 'POST',
        path: '/v1/leads',
        headers: key,
        requests: [{ setupRequest: (r: Record<string, unknown>) => ({ ...r, body: leadBody()() }) }],
      }),
    },
    {
      id: 'T2-dup',
      what: 'POST /v1/leads with distinct phones (T2) vs POST /v1/leads where every lead shares one phone (issue 16)',
      goal: 0.8,
      baseline: http('app', {
        method: 'POST',
        path: '/v1/leads',
        headers: key,
        requests: [
          { setupRequest: (r: Record<string, unknown>) => ({ ...r, body: leadBody({ phone: `+1 212 ${String(n).padStart(7, '0')}` })() }) },
        ],
      }),
      target: http('app', {
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
      baseline: http('bare-insert', bareInsert),
      target: async () => {
        const batchBody = () => JSON.stringify({ leads: Array.from({ length: 100 }, () => JSON.parse(leadBody()())) });
        const s = await measure(
          'app',
          {
            method: 'POST',
            path: '/v1/leads/batch',
            headers: key,
            requests: [{ setupRequest: (r: Record<string, unknown>) => ({ ...r, body: batchBody() }) }],
          },
          ctx,
        );
        return { ...s, rps: s.rps * 100 };
      },
    },
    {
      id: 'T3',
      what: 'bare Express + pg SELECT by key vs GET /v1/leads/:id',
      goal: 0.6,
      baseline: http('bare-select', { path: `/leads/${lead[0].id}` }),
      target: http('app', { path: `/v1/leads/${encodeId('lead', lead[0].id)}`, headers: key }),
    },
    {
      id: 'T4-open',
      what: 'bare Express GET vs the open pixel',
      goal: 0.6,
      baseline: http('bare-json', { path: '/json' }),
      target: http('app', { path: pixel }),
    },
    {
      id: 'T4-click',
      what: 'the T2 baseline vs the click redirect',
      goal: 0.5,
      baseline: http('bare-insert', bareInsert),
      target: http('app', { path: click }),
    },
    {
      id: 'T5-enroll',
      what: `bare client starts/s (${CONNECTIONS} in flight) vs leads enrolled/s by POST /v1/campaigns/:id/enrollments (25 per request, 3 at once)`,
      goal: 0.8,
      baseline: async (round) => {
        const { sample, ids } = await bareStarts(client, round, ENROLL_N, CONNECTIONS);
        bareStarted.push(...ids);
        return sample;
      },
      target: async () => {
        const leadIds = await freshLeads(db, created.tenant.id, ENROLL_N);
        const { url, child } = await startServer('app', ctx);
        try {
          const batches = Array.from({ length: Math.ceil(ENROLL_N / 25) }, (_, i) => leadIds.slice(i * 25, i * 25 + 25));
          let errors = 0;
          const t0 = performance.now();
          const latencies = await pool(batches.length, 3, async (i) => {
            const res = await fetch(`${url}/v1/campaigns/${campaignId}/enrollments`, {
              method: 'POST',
              headers: key,
              body: JSON.stringify({ leadIds: batches[i] }),
            });
            const body = (await res.json()) as { data?: { status: string }[] };
            const ok = body.data?.filter((r) => r.status === 'enrolled').length ?? 0;
            errors += res.ok ? batches[i].length - ok : batches[i].length;
          });
          enrolled.push(...leadIds);
          return {
            rps: ENROLL_N / ((performance.now() - t0) / 1000),
            p50: percentile(latencies, 0.5),
            p99: percentile(latencies, 0.99),
            errors,
          };
        } finally {
          child.kill();
        }
      },
    },
    {
      id: 'T5-signal',
      what: `bare client signals/s to running workflows vs POST /v1/analytics/events signalling the lead's enrollment`,
      goal: 0.8,
      baseline: () => bareSignals(client, bareStarted, DURATION, CONNECTIONS),
      target: http('app', {
        method: 'POST',
        path: '/v1/analytics/events',
        headers: key,
        requests: [
          {
            setupRequest: (r: Record<string, unknown>) => ({
              ...r,
              body: JSON.stringify({ eventType: 'email_open', leadId: enrolled[++n % enrolled.length] }),
            }),
          },
        ],
      }),
    },
    {
      id: 'T6',
      what: 'one-activity workflow completions/s vs webhook deliveries/s to a local receiver (p95: commit to 2xx at half the baseline rate)',
      goal: 0.7,
      p95Goal: 2000,
      baseline: async (round) => {
        if (!workers.length) {
          log('T6: starting the baseline and the real worker (bundling workflows) ...');
          workers.push(await startWorker('baseline', ctx, ONE_ACTIVITY_QUEUE), await startWorker('real', ctx, webhookQueue));
        }
        const sample = await oneActivityCompletions(client, round, T6_N, CONNECTIONS);
        t6BaselineRps = sample.rps;
        return sample;
      },
      // The latency goal holds at a steady rate the system can carry: half this round's baseline.
      target: () =>
        webhookDeliveries(
          { db, workflows: webhookStarter, scope: tenantScope, leadId: lead[0].id, receiver },
          T6_N,
          CONNECTIONS,
          Math.max(1, t6BaselineRps / 2),
        ),
    },
  ];

  const targets: Record<string, unknown> = {};
  for (const c of cases.filter((x) => !ONLY || ONLY.includes(x.id))) {
    const b: Sample[] = [];
    const t: Sample[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      log(`${c.id} round ${round}/${ROUNDS}: baseline ...`);
      b.push(await c.baseline(round));
      log(`${c.id} round ${round}/${ROUNDS}: target ...`);
      t.push(await c.target(round));
    }
    const ratio = Math.round(median(t.map((x, i) => x.rps / b[i].rps)) * 100) / 100;
    const target = summarize(t);
    const met =
      ratio >= c.goal &&
      (c.p99Goal === undefined || target.p99 <= c.p99Goal) &&
      (c.p95Goal === undefined || (target.p95 ?? Infinity) <= c.p95Goal) &&
      target.errors === 0 &&
      summarize(b).errors === 0;
    targets[c.id] = {
      what: c.what,
      baseline: summarize(b),
      target,
      ratio,
      goal: c.goal,
      ...(c.p99Goal ? { p99Goal: c.p99Goal } : {}),
      ...(c.p95Goal ? { p95Goal: c.p95Goal } : {}),
      met,
    };
    log(`${c.id}: ratio ${ratio} (goal ${c.goal}) -> ${met ? 'met' : 'MISSED'}`);
  }
  for (const w of workers) w.kill();
  await receiver.stop();
  await client.connection.close();
  await db.destroy();

  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    date: new Date().toISOString(),
    durationSeconds: DURATION,
    connections: CONNECTIONS,
    rounds: ROUNDS,
  };
  const rows = Object.entries(
    targets as Record<string, { baseline: Sample; target: Sample; ratio: number; goal: number; met: boolean }>,
  ).map(
    ([id, r]) =>
      `| ${id} | ${r.baseline.rps} | ${r.baseline.p50} / ${r.baseline.p99} | ${r.target.rps} | ${r.target.p50} / ${r.target.p99}${r.target.p95 !== undefined ? ` (p95 paced ${r.target.p95})` : ''} | ${r.baseline.errors} / ${r.target.errors} | ${r.ratio} | ${r.goal} | ${r.met ? 'met' : 'missed'} |`,
  );
  const table = [
    '| id | baseline rps | baseline p50 / p99 ms | target rps | target p50 / p99 ms | errors (B / T) | ratio | goal | result |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  console.log('\n' + table + '\n');
  if (ONLY) {
    log('a subset was measured: bench/results/latest.* left as they were');
  } else {
    const dir = path.join(PROJECT_ROOT, 'bench', 'results');
    writeFileSync(path.join(dir, 'latest.json'), JSON.stringify({ machine, targets }, null, 2) + '\n');
    writeFileSync(
      path.join(dir, 'latest.md'),
      [
        `# Benchmark results (${machine.date})`,
        '',
        `${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}; autocannon ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} interleaved rounds, medians.`,
        '',
        table,
        '',
        ...Object.entries(targets as Record<string, { what: string }>).map(([id, r]) => `- ${id}: ${r.what}`),
        '',
      ].join('\n'),
    );
    log(`wrote bench/results/latest.json and latest.md`);
  }
  await temporal.stop();
  await pg.stop();
  rmSync(work, { recursive: true, force: true });
}

/** An active campaign (trigger -> wait a day -> end) created through the API of a short-lived app. */
async function activeCampaign(ctx: { dbUrl: string; temporalAddress: string }, key: Record<string, string>): Promise<string> {
  const { url, child } = await startServer('app', ctx);
  try {
    const post = async (p: string, body: unknown) => {
      const res = await fetch(url + p, { method: 'POST', headers: key, body: JSON.stringify(body) });
      const json = (await res.json()) as { data: { id: string } };
      if (!res.ok) throw new Error(`${p}: ${res.status} ${JSON.stringify(json)}`);
      return json.data.id;
    };
    const workflowId = await post('/v1/workflows', {
      name: 'Bench wait',
      nodes: [
        { nodeId: 'start', type: 'trigger', position: { x: 0, y: 0 }, data: { triggerType: 'manual' } },
        { nodeId: 'wait', type: 'wait', position: { x: 0, y: 100 }, data: { duration: 1, durationUnit: 'days' } },
        { nodeId: 'done', type: 'end', position: { x: 0, y: 200 }, data: {} },
      ],
      edges: [
        { edgeId: 'e1', source: 'start', target: 'wait' },
        { edgeId: 'e2', source: 'wait', target: 'done' },
      ],
    });
    return await post('/v1/campaigns', { name: 'Bench campaign', workflowId, status: 'active' });
  } finally {
    child.kill();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
