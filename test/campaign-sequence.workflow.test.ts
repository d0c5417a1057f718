import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Express } from 'express';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import type { MessagingSettings } from '../activities/messaging/settings';
import { createApp } from '../api/app';
import type { AppDeps } from '../api/http/domain-context';
import { CampaignEnrollment, EngagementEvent, Lead, Message } from '../db/entities';
import { initializeDatabase } from '../db/data-source';
import { scoped } from '../db/scoped-repository';
import { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { campaignSequenceWorkflow, type CampaignSequenceInput } from '../workflows/campaign-sequence';
import { seedEnrollment } from './support/campaign-seed';
import { historyToObject } from './support/history';
import { branchOnOpen, branchOnOpenAfterWait, threeEmails } from './support/sequences';
import { header, SmtpSink, trackingPaths } from './support/smtp-sink';
import { startTimeSkipping, timeSkippingWorker } from './support/time-skipping';

/**
 * Campaign sequences on the time-skipping server: days of waits pass in seconds. Mail goes through
 * nodemailer to a real SMTP server on loopback; tracking links are followed against the real app.
 */
let env: TestWorkflowEnvironment;
let db: DataSource;
let smtp: SmtpSink;
let app: Express;
const tracking = { secret: 'test-tracking-secret-0123456789', baseUrl: 'http://tracking.test' };
let taskQueue: string;
let queues = 0;

beforeAll(async () => {
  env = await startTimeSkipping();
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 4 });
  smtp = await new SmtpSink().start();
});
afterAll(async () => {
  await smtp?.stop();
  await db?.destroy();
  await env?.teardown();
});
beforeEach(() => {
  taskQueue = `campaign-seq-${process.pid}-${++queues}-${Date.now()}`;
  app = createApp({ db, workflows: new WorkflowStarter(env.client, taskQueue), tracking }, { limits: { ipPerMinute: 1_000_000 } });
});

function newWorker(messaging: Partial<MessagingSettings> = {}) {
  return timeSkippingWorker(env, taskQueue, {
    db,
    messaging: { smtpUrl: smtp.url, emailFrom: 'Campaigns <campaigns@example.test>', tracking, ...messaging },
  });
}

const start = (input: CampaignSequenceInput) =>
  env.client.workflow.start(campaignSequenceWorkflow, {
    taskQueue,
    workflowId: `${input.campaignId}-${input.leadId}-${Date.now()}`,
    args: [input],
  });

/** Opens only count as human more than 2 s after sending; wait that long in real time. */
const pastMachineWindow = () => new Promise((r) => setTimeout(r, 2_100));

async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('campaign sequence workflow (time-skipping)', () => {
  it('runs three emails two days apart in seconds, sends each exactly once, and its tracking links work against the API', async () => {
    const seeded = await seedEnrollment(db, threeEmails());
    const worker = await newWorker();
    const handle = await start(seeded.input);
    const result = await worker.runUntil(handle.result());

    expect(result).toEqual({
      status: 'completed',
      exitReason: null,
      path: ['start', 'email-1', 'wait-1', 'email-2', 'wait-2', 'email-3', 'done'],
    });
    const mails = smtp.to(seeded.lead.email);
    expect(mails).toHaveLength(3);
    expect(header(mails[0], 'Subject')).toBe('Welcome, Grace');
    expect(header(mails[0], 'List-Unsubscribe')).toMatch(/^<http:\/\/tracking\.test\/v1\/t\/u\/[A-Za-z0-9_.-]+>$/);
    expect(header(mails[0], 'Message-ID')).toMatch(/^<msg[A-Za-z0-9]+@example\.test>$/);
    const messages = await scoped(db.manager, Message, seeded.scope).find({
      where: { campaignId: seeded.campaign.id },
      order: { id: 'ASC' },
    });
    expect(messages.map((m) => [m.status, m.sandbox])).toEqual([
      ['sent', false],
      ['sent', false],
      ['sent', false],
    ]);
    const enrollment = await scoped(db.manager, CampaignEnrollment, seeded.scope).findById(seeded.enrollment.id);
    expect(enrollment?.status).toBe('completed');

    // The timers are the two 2-day waits.
    const history = await handle.fetchHistory();
    const timers = (history.events ?? []).map((e) => e.timerStartedEventAttributes?.startToFireTimeout?.seconds).filter(Boolean);
    expect(timers.map(Number)).toEqual([172_800, 172_800]);
    if (process.env.RECORD_HISTORIES) {
      writeFileSync(path.join(__dirname, 'histories', 'campaign-sequence.json'), JSON.stringify(historyToObject(history), null, 1));
    }

    await pastMachineWindow();
    const last = mails[2];
    const pixel = await request(app).get(trackingPaths(last, 'o')[0]).set('User-Agent', 'Mozilla/5.0');
    expect([pixel.status, pixel.headers['content-type'], pixel.headers['cache-control']]).toEqual([
      200,
      'image/gif',
      'no-store, max-age=0',
    ]);
    expect(pixel.body.length).toBeGreaterThan(0);
    await request(app).head(trackingPaths(last, 'o')[0]).expect(200);
    const click = await request(app).get(trackingPaths(last, 'c')[0]);
    expect([click.status, click.headers.location]).toEqual([302, 'https://example.com/pricing?from=email-3']);

    // Opens and clicks are recorded in batches after the answer.
    await (app.locals.deps as AppDeps).trackingHits.flush();
    const events = await scoped(db.manager, EngagementEvent, seeded.scope).find({
      where: { messageId: messages[2].id },
      order: { id: 'ASC' },
    });
    expect(events.map((e) => [e.type, e.machine])).toEqual([
      ['email_open', false],
      ['email_open', true],
      ['link_click', false],
    ]);

    const unsubscribe = await request(app).get(trackingPaths(last, 'u')[0]);
    expect(unsubscribe.status).toBe(200);
    expect((await scoped(db.manager, Lead, seeded.scope).findById(seeded.lead.id))?.unsubscribedAt).toBeInstanceOf(Date);
  });

  it('answers 404 to tampered tracking tokens and never redirects elsewhere', async () => {
    const seeded = await seedEnrollment(db, threeEmails({ duration: 1, durationUnit: 'minutes' }));
    const worker = await newWorker();
    await worker.runUntil(start(seeded.input).then((h) => h.result()));
    const clickPath = trackingPaths(smtp.to(seeded.lead.email)[0], 'c')[0];
    const [payload, signature] = clickPath.split('/').pop()!.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const evil = Buffer.from(JSON.stringify({ ...claims, u: 'https://evil.example/phish' })).toString('base64url');
    for (const bad of [
      `/v1/t/c/${evil}.${signature}`,
      `/v1/t/c/${payload}.${'A'.repeat(27)}`,
      `/v1/t/o/${payload}.${signature}`,
      '/v1/t/c/garbage',
    ]) {
      const res = await request(app).get(bad);
      expect([bad, res.status, res.headers.location]).toEqual([bad, 404, undefined]);
    }
  });

  it('takes the true branch when an open arrives within the window, and the false branch when the window closes without one', async () => {
    const opened = await seedEnrollment(db, branchOnOpen());
    const ignored = await seedEnrollment(db, branchOnOpen(), opened.scope);
    const worker = await newWorker();
    await worker.runUntil(async () => {
      const openedRun = await env.client.workflow.start(campaignSequenceWorkflow, {
        taskQueue,
        workflowId: opened.enrollment.workflowId,
        args: [opened.input],
      });
      const mail = await waitFor(async () => smtp.to(opened.lead.email)[0], 'the intro email');
      await pastMachineWindow();
      await request(app).get(trackingPaths(mail, 'o')[0]).set('User-Agent', 'Mozilla/5.0').expect(200);
      // Recorded (and signalled) within 100 ms in real time; time skipping would race past that.
      await (app.locals.deps as AppDeps).trackingHits.flush();
      expect((await openedRun.result()).path).toEqual(['start', 'intro', 'opened:true', 'yes-email', 'done']);

      const ignoredRun = await start(ignored.input);
      expect((await ignoredRun.result()).path).toEqual(['start', 'intro', 'opened:false', 'no-email', 'done']);
    });
    expect(smtp.to(opened.lead.email).map((m) => header(m, 'Subject'))).toEqual(['Hello', 'Glad you read it']);
    expect(smtp.to(ignored.lead.email).map((m) => header(m, 'Subject'))).toEqual(['Hello', 'Did you miss this?']);
  });

  it('signals only an enrollment that waits on a condition: an open during a wait costs no signal, and the condition reads it', async () => {
    const seeded = await seedEnrollment(db, branchOnOpenAfterWait());
    const worker = await newWorker();
    const handle = await worker.runUntil(async () => {
      const run = await start(seeded.input);
      const mail = await waitFor(async () => smtp.to(seeded.lead.email)[0], 'the intro email');
      await pastMachineWindow();
      await request(app).get(trackingPaths(mail, 'o')[0]).set('User-Agent', 'Mozilla/5.0').expect(200);
      await (app.locals.deps as AppDeps).trackingHits.flush();
      // The open is stored while the enrollment sleeps through its one-day wait (time skips only
      // while a result is awaited), and the enrollment is not marked as waiting for engagement.
      const opens = await scoped(db.manager, EngagementEvent, seeded.scope).find({ where: { leadId: seeded.lead.id, type: 'email_open' } });
      expect(opens.filter((e) => !e.machine)).toHaveLength(1);
      expect(
        (await scoped(db.manager, CampaignEnrollment, seeded.scope).findById(seeded.enrollment.id))?.engagementSignalsUntil,
      ).toBeNull();
      expect((await run.result()).path).toEqual(['start', 'intro', 'pause', 'opened:true', 'yes-email', 'done']);
      return run;
    });
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes)).toHaveLength(0);
    // The condition opened its window and read the earlier open in a local activity (a marker).
    expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(1);
    expect(smtp.to(seeded.lead.email).map((m) => header(m, 'Subject'))).toEqual(['Hello', 'Glad you read it']);
  });

  it('sends each email once when the worker fails after the SMTP server accepted it (Temporal retries the activity)', async () => {
    const seeded = await seedEnrollment(db, threeEmails());
    const crashed = new Set<string>();
    const worker = await newWorker({
      afterProviderAccept: (message) => {
        if (crashed.has(message.id)) return;
        crashed.add(message.id);
        throw new Error('injected crash after the provider accepted the message');
      },
    });
    const result = await worker.runUntil(start(seeded.input).then((h) => h.result()));
    expect(result.status).toBe('completed');
    expect(crashed.size).toBe(3);
    expect(smtp.to(seeded.lead.email)).toHaveLength(3);
    const messages = await scoped(db.manager, Message, seeded.scope).find({ where: { campaignId: seeded.campaign.id } });
    expect(messages.map((m) => m.status)).toEqual(['sent', 'sent', 'sent']);
  });

  it('continues as new when the history grows and carries its state across runs', async () => {
    const seeded = await seedEnrollment(db, threeEmails());
    const worker = await newWorker();
    const handle = await start({ ...seeded.input, continueAsNewAfter: 10 });
    const result = await worker.runUntil(handle.result());
    expect(result.path).toEqual(['start', 'email-1', 'wait-1', 'email-2', 'wait-2', 'email-3', 'done']);
    expect(smtp.to(seeded.lead.email)).toHaveLength(3);
    const first = await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
  });

  it('leaves the sequence when the lead converted before the next send', async () => {
    const seeded = await seedEnrollment(db, threeEmails());
    const worker = await newWorker();
    const result = await worker.runUntil(async () => {
      const handle = await start(seeded.input);
      await waitFor(async () => smtp.to(seeded.lead.email)[0], 'the first email');
      await scoped(db.manager, Lead, seeded.scope).updateWhere({ id: seeded.lead.id }, { convertedAt: new Date() });
      return handle.result();
    });
    expect(result).toEqual({ status: 'exited', exitReason: 'converted', path: ['start', 'email-1', 'wait-1', 'email-2'] });
    expect(smtp.to(seeded.lead.email)).toHaveLength(1);
    expect((await scoped(db.manager, CampaignEnrollment, seeded.scope).findById(seeded.enrollment.id))?.exitReason).toBe('converted');
  });
});
