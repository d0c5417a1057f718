import request from 'supertest';
import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import { signTrackingToken } from '../domain/communications/tracking-token';
import { config } from '../lib/config';
import { encodeId } from '../lib/ids';
import { serializeError } from '../lib/log-redaction';
import { withSerializedErrors } from '../workers/runtime';
import { freePort } from './support/free-port';
import { ServiceProcess } from './support/processes/service-process';
import { newTenant, validLead } from './support/stack';

let db: DataSource;
let api: ServiceProcess;
const MARKER = `sql-fails-${process.pid}`;
const TRIGGER = `test_fail_marked_lead_${process.pid}`;

// The production API as a child process: its real stdout is the log under test.
beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 2 });
  // A real SQL failure: PostgreSQL refuses marked leads and quotes a value in the message, as its own errors do.
  await db.query(`CREATE FUNCTION ${TRIGGER}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.email LIKE '${MARKER}%' THEN RAISE EXCEPTION 'invalid input for lead: "%"', NEW.custom_fields->>'apiToken'; END IF;
      RETURN NEW;
    END $$`);
  await db.query(`CREATE TRIGGER ${TRIGGER} BEFORE INSERT ON leads FOR EACH ROW EXECUTE FUNCTION ${TRIGGER}()`);
  api = await new ServiceProcess('api', {
    DATABASE_URL: process.env.TEST_DB_URL as string,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS as string,
    TEMPORAL_TASK_QUEUE: `logs-${process.pid}-${Date.now()}`,
    PORT: String(await freePort()),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  }).start();
}, 120_000);
afterAll(async () => {
  await api?.stop();
  await db.query(`DROP TRIGGER IF EXISTS ${TRIGGER} ON leads`);
  await db.query(`DROP FUNCTION IF EXISTS ${TRIGGER}()`);
  await db.destroy();
});

describe('the logs of a session full of secrets', () => {
  it('contain none of the API keys, password, JWT, tracking and file tokens, webhook secret or SQL parameters it used', async () => {
    const http = () => request(api.baseUrl);
    const t = await newTenant(db);
    const secrets: Record<string, string> = { liveKey: t.liveKey, sandboxKey: t.sandboxKey, password: t.password };

    expect((await http().post('/v1/leads').set(t.live).send(validLead())).status).toBe(201);
    expect((await http().get('/v1/leads').set(t.sandbox)).status).toBe(200);
    expect(
      (
        await http()
          .get('/v1/leads')
          .set('X-API-Key', `${t.liveKey.slice(0, -4)}zzzz`)
      ).status,
    ).toBe(401);
    secrets.wrongKey = `${t.liveKey.slice(0, -4)}zzzz`;

    const login = await http().post('/v1/auth/login').send({ email: t.user.email, password: t.password });
    expect(login.status).toBe(200);
    secrets.jwt = login.body.data.accessToken;
    const withJwt = { Authorization: `Bearer ${secrets.jwt}`, 'X-Tenant-Id': login.body.data.tenantId };
    expect((await http().get('/v1/leads').set(withJwt)).status).toBe(200);
    expect(
      (
        await http()
          .post('/v1/auth/login')
          .send({ email: t.user.email, password: `${t.password}-wrong` })
      ).status,
    ).toBe(401);
    secrets.wrongPassword = `${t.password}-wrong`;

    const webhook = await http()
      .post('/v1/integrations/webhooks')
      .set(t.live)
      .send({ url: 'http://127.0.0.1:9/hook', events: ['lead.created'] });
    expect(webhook.status).toBe(201);
    secrets.webhookSecret = webhook.body.data.secret;
    const shown = await http().get(`/v1/integrations/webhooks/${webhook.body.data.id}/secret`).set(t.live);
    expect(shown.status).toBe(200);

    const tracking = signTrackingToken(config.TRACKING_SECRET, { k: 'o', t: t.id, e: 'live', m: encodeId('message', 1) });
    secrets.trackingToken = tracking;
    expect((await http().get(`/v1/t/o/${tracking}`)).status).toBe(200);

    const upload = await http()
      .post('/v1/files/uploads')
      .set(t.sandbox)
      .send({ fileName: 'deck.pdf', contentType: 'application/pdf', size: 11 });
    expect(upload.status).toBe(201);
    const uploadPath = new URL(upload.body.data.upload.url).pathname;
    secrets.uploadToken = uploadPath.split('/').pop() as string;
    expect((await http().put(uploadPath).set('Content-Type', 'application/pdf').send('%PDF-1.7 ok')).status).toBe(200);
    expect((await http().post(`/v1/files/${upload.body.data.id}/complete`).set(t.sandbox)).status).toBe(200);
    const download = await http().get(`/v1/files/${upload.body.data.id}/download-url`).set(t.sandbox);
    const downloadPath = new URL(download.body.data.url).pathname;
    secrets.downloadToken = downloadPath.split('/').pop() as string;
    expect((await http().get(downloadPath)).status).toBe(200);

    secrets.sqlParameter = `sk_live_${process.pid}SqlParameterSecret`;
    const failing = validLead({ email: `${MARKER}@example.com`, customFields: { apiToken: secrets.sqlParameter } });
    expect((await http().post('/v1/leads').set(t.live).send(failing)).status).toBe(500);

    await api.stop(); // flushes the log
    const log = api.output.join('\n');
    for (const [name, secret] of Object.entries(secrets)) {
      expect([name, log.includes(secret)]).toEqual([name, false]);
    }
    // The log did record this session, with route templates in place of raw paths.
    expect(log).toContain('"route":"/v1/t/o/:token"');
    expect(log).toContain('"route":"/v1/files/direct/:token"');
    expect(log).toContain('"msg":"unhandled error"');
    expect(log).toContain('invalid input for lead: \\"[redacted]\\"');
  });

  it('keep no value of a failed SQL statement in an error, as the API logs it and as the worker logs an activity failure', async () => {
    const secret = `sk_live_${process.pid}NotABigint`;
    // PostgreSQL quotes the offending input in its message; TypeORM adds the parameters.
    const err = await db.query('SELECT $1::bigint AS n', [secret]).catch((e: unknown) => e);
    expect(JSON.stringify({ ...(err as object) })).toContain(secret);
    for (const logged of [serializeError(err), withSerializedErrors({ error: err, activityType: 'x' })]) {
      const line = JSON.stringify(logged);
      expect(line).toContain('invalid input syntax for type bigint: \\"[redacted]\\"');
      expect(line).not.toContain(secret);
    }
  });
});
