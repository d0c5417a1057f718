import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import { DUE_SMS_SQL } from '../domain/communications/reconcile-sms-statuses';
import { analyzedPlanOf, genericPlanOf, withLargeTable } from './support/query-plans';

/**
 * Every 10 minutes the SMS status sweep looks, across tenants, for sent SMS still waiting for a
 * final status (domain/communications/reconcile-sms-statuses.ts). Those are a few among all
 * messages (emails, SMS long delivered or failed): the statement must read the partial index of
 * them (ix_messages_sms_unreconciled) in send-time order, never the messages table, as a prepared
 * statement's generic plan and once statistics know how rare they are.
 */
let db: DataSource;
beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 1 });
});
afterAll(() => db.destroy());

// Emails of many tenants, SMS delivered or failed, and one in 100 an SMS still awaiting its status, sent over three days.
const messages = `INSERT INTO messages (id, tenant_id, environment, channel, to_address, body, status, idempotency_key, provider_message_id, sent_at, delivered_at)
  OVERRIDING SYSTEM VALUE SELECT g, 1 + g % 50, 'live', CASE WHEN g % 3 = 0 THEN 'sms' ELSE 'email' END, 'x', 'b',
    CASE WHEN g % 3 = 0 AND g % 7 = 0 THEN 'failed' ELSE 'sent' END, 'k' || g, 'SM' || g, now() - g * interval '10 seconds',
    CASE WHEN g % 3 = 0 AND g % 100 <> 0 THEN now() ELSE NULL END`;

/**
 * The temporary table's copy of ix_messages_sms_unreconciled is named after its columns; that it
 * is the partial one shows in what is left to filter: only the recheck, never channel or status.
 */
function expectPartialIndex(plan: string): void {
  expect(plan).toMatch(/Index Scan using messages_sent_at_id_idx on messages/);
  expect(plan).toMatch(/Index Cond: .*sent_at/);
  expect(plan).not.toMatch(/Seq Scan|channel|status\)?(::text)? =|delivered_at/);
}

describe("the SMS status sweep's query", () => {
  it('reads the index of SMS awaiting a status in the generic plan of its prepared statement, on a large never-analyzed table', async () => {
    const plan = await withLargeTable(db, 'messages', messages, genericPlanOf(DUE_SMS_SQL));
    expectPartialIndex(plan);
    expect(plan).not.toMatch(/Sort/); // read in the cursor's order
  });

  it('reads the same index once the table is analyzed', async () => {
    const plan = await withLargeTable(
      db,
      'messages',
      messages,
      analyzedPlanOf('messages', DUE_SMS_SQL, [15 * 60_000, 72 * 3600_000, 3600_000, '-infinity', '0', 100]),
    );
    expectPartialIndex(plan);
  });
});
