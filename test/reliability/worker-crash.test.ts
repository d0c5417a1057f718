import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../../db/data-source';
import { campaignApi, type Lead } from '../support/campaign-api';
import { startServices, type Services } from '../support/processes/services';
import { threeEmails } from '../support/sequences';
import { header, SmtpSink } from '../support/smtp-sink';
import { newTenant } from '../support/stack';
import { waitUntil } from '../support/wait-until';

/**
 * A worker killed with SIGKILL (OOM killer, lost node) while enrollments sleep, and again right
 * after emails reached the SMTP server but before the worker heard back: a fresh worker takes over
 * and every lead still gets every email exactly once.
 */
const WAIT = { duration: 0.2, durationUnit: 'minutes' as const }; // 12 s: long enough to kill inside it
const LEADS = 3;
const SUBJECTS = ['Welcome, Ada', 'Second note', 'Last note'];

let db: DataSource;
let sink: SmtpSink;
let services: Services;

beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 2 });
  sink = await new SmtpSink().start();
  services = await startServices({
    databaseUrl: process.env.TEST_DB_URL as string,
    temporalAddress: process.env.TEST_TEMPORAL_ADDRESS as string,
    smtpUrl: sink.url,
  });
});

afterAll(async () => {
  await services?.stop();
  await sink?.stop();
  await db?.destroy();
});

const subjectsOf = (lead: Lead) => sink.to(lead.email).map((m) => header(m, 'Subject'));

it('delivers each email of a sequence exactly once to every lead when the worker is killed mid-wait and right after a send', async () => {
  const tenant = await newTenant(db);
  const api = campaignApi(services.api.baseUrl, tenant);
  const campaign = await api.activeCampaign(threeEmails(WAIT));
  const leads = await api.leads(LEADS);
  await api.enroll(campaign.id, leads).expect(200);

  // Crash 1: every enrollment sent its first email and sleeps on its durable timer.
  const sleeping = await waitUntil(async () => {
    const list = await api.enrollments(campaign.id);
    return list.length === LEADS && list.every((e) => e.progress?.currentNodeId === 'wait-1') && list;
  }, 'every enrollment to sleep in wait-1');
  await services.worker.kill();
  // The timers fire while no worker runs; the next worker must pick them up.
  const lastWake = Math.max(...sleeping.map((e) => Date.parse(e.progress?.nextWakeAt as string)));
  await new Promise((r) => setTimeout(r, Math.max(0, lastWake - Date.now()) + 1000));

  // Crash 2: hold the SMTP answer for every second email until all have arrived, then kill the
  // worker before it can record any of them as sent. The retry must not send them again.
  let arrived = 0;
  let killed: Promise<void> | null = null;
  sink.beforeAccept = async (mail) => {
    if (header(mail, 'Subject') !== SUBJECTS[1] || killed) return;
    if (++arrived === LEADS) killed = services.worker.kill();
    await waitUntil(async () => killed !== null, 'the worker to be killed', 120_000);
  };
  await services.replaceWorker();
  await waitUntil(async () => killed !== null, 'every second email to reach the SMTP server', 60_000);
  await killed;
  sink.beforeAccept = () => {};
  await services.replaceWorker();

  // A send lost with its worker is retried once its heartbeat timeout (20 s) passes.
  await waitUntil(
    async () => (await api.enrollments(campaign.id)).every((e) => e.status === 'completed'),
    'every enrollment to complete',
    150_000,
  );
  for (const lead of leads) expect(subjectsOf(lead)).toEqual(SUBJECTS);
});
