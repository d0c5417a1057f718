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

const DURATION = Number(process.argv[2] ?? 8);
/** Optional comma-separated target ids (e.g. T2,T4-open) to measure only those while profiling. */
const ONLY = process.argv[3]?.split(',');
const CONNECTIONS = 50;
const ROUNDS = 3;

type Mode = 'bare-json' | 'bare-insert' | 'bare-select' | 'app';
interface Sample {
  rps: number;
  p50: number;
  p99: number;
  /** 4xx and 5xx answers: a run with errors measures the wrong thing, so it cannot meet its goal. */
  errors: number;
}
interface Case {
  id: string;
  goal: number;
  p99Goal?: number;
  baseline: { mode: Mode; request: Record<string, unknown> };
  target: { mode: Mode; request: Record<string, unknown> };
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
const summarize = (s: Sample[]) => ({
  rps: Math.round(median(s.map((x) => x.rps))),
  p50: median(s.map((x) => x.p50)),
  p99: median(s.map((x) => x.p99)),
  errors: s.reduce((a, x) => a + x.errors, 0),
});

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
  await db.destroy();
  const ctx = { dbUrl: pg.url, temporalAddress: temporal.address };
  const key = { 'x-api-key': created.liveKey, 'content-type': 'application/json' };
  let n = 0;
  const leadBody =
    (extra: Record<string, unknown> = {}) =>
    () =>
      JSON.stringify({ email: `bench-${process.pid}-${++n}@example.com`, firstName: 'Bench', lastName: 'Mark', ...extra });

  const cases: Case[] = [
    {
      id: 'T1',
      goal: 0.7,
      baseline: { mode: 'bare-json', request: { path: '/json' } },
      target: { mode: 'app', request: { path: '/healthz' } },
    },
    {
      id: 'T2',
      goal: 0.5,
      p99Goal: 50,
      baseline: {
        mode: 'bare-insert',
        request: {
          method: 'POST',
          path: '/leads',
          headers: { 'content-type': 'application/json' },
          requests: [{ setupRequest: (r: Record<string, unknown>) => ({ ...r, body: leadBody({ tenantId: created.tenant.id })() }) }],
        },
      },
      target: {
        mode: 'app',
        request: {
          method: 'POST',
          path: '/v1/leads',
          headers: key,
          requests: [{ setupRequest: (r: Record<string, unknown>) => ({ ...r, body: leadBody()() }) }],
        },
      },
    },
    {
      id: 'T3',
      goal: 0.6,
      baseline: { mode: 'bare-select', request: { path: `/leads/${lead[0].id}` } },
      target: { mode: 'app', request: { path: `/v1/leads/${encodeId('lead', lead[0].id)}`, headers: key } },
    },
    {
      id: 'T4-open',
      goal: 0.6,
      baseline: { mode: 'bare-json', request: { path: '/json' } },
      target: { mode: 'app', request: { path: pixel } },
    },
    {
      id: 'T4-click',
      goal: 0.5,
      baseline: {
        mode: 'bare-insert',
        request: {
          method: 'POST',
          path: '/leads',
          headers: { 'content-type': 'application/json' },
          requests: [{ setupRequest: (r: Record<string, unknown>) => ({ ...r, body: leadBody({ tenantId: created.tenant.id })() }) }],
        },
      },
      target: { mode: 'app', request: { path: click } },
    },
  ];

  const targets: Record<string, unknown> = {};
  for (const c of cases.filter((x) => !ONLY || ONLY.includes(x.id))) {
    const b: Sample[] = [];
    const t: Sample[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      log(`${c.id} round ${round}/${ROUNDS}: baseline ${c.baseline.mode} ...`);
      b.push(await measure(c.baseline.mode, c.baseline.request, ctx));
      log(`${c.id} round ${round}/${ROUNDS}: target ...`);
      t.push(await measure(c.target.mode, c.target.request, ctx));
    }
    const ratio = Math.round(median(t.map((x, i) => x.rps / b[i].rps)) * 100) / 100;
    const target = summarize(t);
    const met = ratio >= c.goal && (c.p99Goal === undefined || target.p99 <= c.p99Goal) && target.errors === 0 && summarize(b).errors === 0;
    targets[c.id] = { baseline: summarize(b), target, ratio, goal: c.goal, ...(c.p99Goal ? { p99Goal: c.p99Goal } : {}), met };
    log(`${c.id}: ratio ${ratio} (goal ${c.goal}) -> ${met ? 'met' : 'MISSED'}`);
  }

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
  const out = { machine, targets };
  const dir = path.join(PROJECT_ROOT, 'bench', 'results');
  writeFileSync(path.join(dir, 'latest.json'), JSON.stringify(out, null, 2) + '\n');
  const rows = Object.entries(
    targets as Record<string, { baseline: Sample; target: Sample; ratio: number; goal: number; met: boolean }>,
  ).map(
    ([id, r]) =>
      `| ${id} | ${r.baseline.rps} | ${r.baseline.p50} / ${r.baseline.p99} | ${r.target.rps} | ${r.target.p50} / ${r.target.p99} | ${r.ratio} | ${r.goal} | ${r.met ? 'met' : 'missed'} |`,
  );
  writeFileSync(
    path.join(dir, 'latest.md'),
    [
      `# Benchmark results (${machine.date})`,
      '',
      `${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}; autocannon ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} interleaved rounds, medians.`,
      '',
      '| id | baseline rps | baseline p50 / p99 ms | target rps | target p50 / p99 ms | ratio | goal | result |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
  log(`wrote bench/results/latest.json and latest.md`);
  await temporal.stop();
  await pg.stop();
  rmSync(work, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
