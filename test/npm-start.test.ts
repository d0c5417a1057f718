/**
 * `npm start` as a new user runs it (scripts/start.ts in a child process of its own process group,
 * with its embedded PostgreSQL and Temporal dev server), and `npm run admin` in a second terminal.
 */
import path from 'node:path';
import { freePort } from './support/free-port';
import { runScript, ServiceProcess } from './support/processes/service-process';
import { waitUntil } from './support/wait-until';

let start: ServiceProcess;
let dataDir: string;
beforeAll(async () => {
  dataDir = path.join(process.env.TEST_WORK_DIR as string, `npm-start-${Date.now()}`);
  start = new ServiceProcess('start', {
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    // Empty means unset: the embedded PostgreSQL and a dev server of its own, as for a new user.
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
    EMBEDDED_PG_PORT: String(await freePort()),
    TEMPORAL_DEV_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    PORT: String(await freePort()),
    WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE as string,
  });
  await start.start();
}, 150_000);
afterAll(async () => {
  await start.interrupt();
});

const admin = (args: string[], env: Record<string, string> = {}) =>
  runScript('scripts/admin.ts', args, { NODE_ENV: 'development', DATA_DIR: dataDir, DATABASE_URL: '', ...env });

describe('npm start with npm run admin beside it', () => {
  it('prints the admin command that creates a tenant', () => {
    expect(start.output.join('\n')).toContain('npm run admin -- tenant create --name');
  });

  it('runs admin commands against the running embedded PostgreSQL; the new tenant works on the running API', async () => {
    const created = await admin(['tenant', 'create', '--name', 'Second Terminal', '--plan', 'pro']);
    expect(created.stderr).not.toMatch(/undefined/);
    expect(created.code).toBe(0);
    const tenant = JSON.parse(created.stdout) as Record<string, string>;
    expect(tenant.liveKey).toMatch(/^svc_live_sk_/);
    const res = await fetch(`http://127.0.0.1:${start.env.PORT}/v1/leads`, { headers: { 'X-API-Key': tenant.liveKey } });
    expect(res.status).toBe(200);
    const listed = await admin(['tenant', 'list']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ tenantId: tenant.tenantId, plan: 'pro' }));
  });

  it('explains a PostgreSQL that cannot start (here: its port is taken) instead of printing "undefined"', async () => {
    const res = await admin(['tenant', 'list'], {
      DATA_DIR: path.join(dataDir, 'other'),
      EMBEDDED_PG_PORT: start.env.EMBEDDED_PG_PORT,
    });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/admin failed: Embedded PostgreSQL did not start .*port/);
    expect(res.stderr).toMatch(/set EMBEDDED_PG_PORT/);
    expect(res.stderr).not.toMatch(/failed: undefined/);
  });

  it('refuses a second npm start on the same DATA_DIR, saying why', async () => {
    const second = await runScript('scripts/start.ts', [], { ...start.env, PORT: String(await freePort()) });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/already running on .*is another `npm start` running\?/);
  });

  it('runs the worker as a process of its own, and starts it again when it dies', async () => {
    const workerPid = (line: string) => Number(/\[start\] worker running \(process (\d+)\)/.exec(line)?.[1] ?? NaN);
    const first = start.output.map(workerPid).find((pid) => !Number.isNaN(pid))!;
    expect(first).toBeGreaterThan(0);
    expect(first).not.toBe(start.pid);
    process.kill(first, 'SIGKILL'); // as the OOM killer would
    await start.waitForLine((l) => l.includes('the worker process exited; starting it again'), 15_000);
    await start.waitForLine((l) => workerPid(l) > 0 && workerPid(l) !== first, 60_000);

    // The new worker runs what the API queues: a lead import is a workflow with activities.
    const base = `http://127.0.0.1:${start.env.PORT}`;
    const key = JSON.parse((await admin(['tenant', 'create', '--name', 'Worker Restart', '--plan', 'pro'])).stdout).liveKey as string;
    const form = new FormData();
    form.append('file', new Blob(['Email,First name,Last name\nrestart@example.com,Wor,Ker\n'], { type: 'text/csv' }), 'leads.csv');
    const uploaded = await fetch(`${base}/v1/files/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body: form });
    const file = ((await uploaded.json()) as { data: { id: string } }).data;
    const mapping = { email: 'Email', firstName: 'First name', lastName: 'Last name' };
    const started = await fetch(`${base}/v1/leads/imports`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ fileId: file.id, format: 'csv', mapping, onExisting: 'skip' }),
    });
    expect(started.status).toBe(202);
    const { id } = ((await started.json()) as { data: { id: string } }).data;
    const done = await waitUntil(async () => {
      const res = await fetch(`${base}/v1/leads/imports/${id}`, { headers: { 'X-API-Key': key } });
      const { data } = (await res.json()) as { data: { status: string } };
      return data.status === 'completed' && data;
    }, 'the import to complete on the restarted worker');
    expect(done).toMatchObject({ created: 1, failed: 0 });
  }, 120_000);

  it('stops on Ctrl-C without an error-level log line', async () => {
    await start.interrupt();
    expect(start.exitCode).toBe(0);
    expect(start.output).toContain('[start] stopped');
    const restarted = (l: string) => l.includes('the worker process exited; starting it again'); // the kill -9 above
    const errors = start.output.filter((l) => /"level":(50|60)/.test(l) && !restarted(l));
    expect(errors).toEqual([]);
  });
});
