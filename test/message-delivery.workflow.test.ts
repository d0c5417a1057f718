import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import { ScopedData } from '../db/scoped-data';
import { storeMessageOnce } from '../domain/communications/store-message';
import { encodeId } from '../lib/ids';
import { sendMessageWorkflow } from '../workflows/send-message';
import { outboxOf, subscribeToEverything } from './support/events';
import { WebhookReceiver } from './support/webhook-receiver';
import { SmtpSink } from './support/smtp-sink';
import { newTenant, type TestTenant } from './support/stack';
import { startTimeSkipping, timeSkippingWorker } from './support/time-skipping';

/**
 * The message-delivery workflow (`email/<messageId>`) on the time-skipping server with a real
 * worker, PostgreSQL and SMTP server: retries are Temporal's own, their backoff skipped.
 */
let env: TestWorkflowEnvironment;
let db: DataSource;
let smtp: SmtpSink;
let tenant: TestTenant;
let receiver: WebhookReceiver;
let queues = 0;
const tracking = { secret: 'message-delivery-secret-0123456789', baseUrl: 'https://delivery.test' };

beforeAll(async () => {
  env = await startTimeSkipping();
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 4 });
  smtp = await new SmtpSink().start();
  receiver = await new WebhookReceiver().start();
  tenant = await newTenant(db);
  await subscribeToEverything(db, tenant, receiver.url());
});
afterAll(async () => {
  await receiver?.stop();
  await smtp?.stop();
  await db?.destroy();
  await env?.teardown();
});

const scope = () => ({ tenantId: tenant.tenant.id, environment: 'live' as const });

describe('the message-delivery workflow', () => {
  it('fails a refused email with one email.failed when Temporal retries a failMessage whose first attempt committed and then failed', async () => {
    const to = `refused-${Date.now()}@example.com`;
    smtp.beforeAccept = async (mail) => {
      if (mail.to.includes(to)) throw Object.assign(new Error('5.7.1 Message rejected as spam'), { responseCode: 554 });
    };
    const attempts: number[] = [];
    const taskQueue = `message-delivery-${process.pid}-${++queues}`;
    const worker = await timeSkippingWorker(env, taskQueue, {
      db,
      messaging: {
        smtpUrl: smtp.url,
        emailFrom: 'Sales <sales@example.test>',
        tracking,
        // The first attempt's transaction commits, then the attempt fails, as when its worker
        // dies before reporting: Temporal runs it again.
        afterFailRecorded: () => {
          const { attempt } = Context.current().info;
          attempts.push(attempt);
          if (attempt === 1) throw new Error('the first attempt failed after its commit');
        },
      },
    });
    const message = await storeMessageOnce(new ScopedData(db.manager, scope()), {
      channel: 'email',
      to,
      subject: 'Offer',
      body: 'Buy now',
      idempotencyKey: `test/${to}`,
    });
    try {
      const result = await worker.runUntil(
        env.client.workflow.execute(sendMessageWorkflow, {
          taskQueue,
          workflowId: `email/${message.id}-${Date.now()}`,
          args: [{ ...scope(), messageId: message.id }],
        }),
      );
      expect(result).toEqual({ status: 'failed' });
    } finally {
      smtp.beforeAccept = () => {};
    }
    expect(attempts).toEqual([1, 2]);
    const failed = (await outboxOf(db, tenant, 'live', ['email.failed'])).filter(
      (e) => e.data.messageId === encodeId('message', message.id),
    );
    expect(failed).toHaveLength(1);
    expect(failed[0].data.reason).toContain('Message rejected as spam');
  });
});
