import { writeFileSync } from 'node:fs';
import { WorkflowNotFoundError } from '@temporalio/client';
import path from 'node:path';
import { createApp, flushApp } from '../api/app';
import { createLeadImportActivities } from '../activities/leads/import-leads';
import { config } from '../lib/config';
import { createFileStorage } from '../lib/files/create-storage';
import { decodeId, encodeId } from '../lib/ids';
import { WorkflowStarter } from '../lib/temporal/workflow-starter';
import request from 'supertest';
import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';
import { historyToObject } from './support/history';
import { autoEnrollmentsMade, triggeredCampaign } from './support/campaign-api';
import { waitUntil } from './support/wait-until';
import { leadImportWorkflow } from '../workflows/lead-import';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const MAPPING = { email: 'Email', firstName: 'First name', lastName: 'Last name', phone: 'Phone', customFields: { company: 'Company' } };

/** A CSV file of MAPPING's columns: the header, then `rows`. */
const csvOf = (rows: string[]) => ['Email,First name,Last name,Phone,Company', ...rows].join('\n') + '\n';

const upload = async (t: TestTenant, content: string, contentType = 'text/csv', http = stack.http) => {
  const res = await http()
    .post('/v1/files/upload')
    .set(t.live)
    .attach('file', Buffer.from(content), { filename: contentType === 'text/csv' ? 'leads.csv' : 'leads.ndjson', contentType });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
};

const startImport = (t: TestTenant, body: Record<string, unknown>, http = stack.http) =>
  http().post('/v1/leads/imports').set(t.live).send(body);

/** Polls the import until it is no longer queued or running. */
async function finished(t: TestTenant, id: string, timeoutMs = 60_000) {
  let body: Record<string, unknown> = {};
  await waitUntil(
    async () => {
      body = (await stack.http().get(`/v1/leads/imports/${id}`).set(t.live).expect(200)).body.data;
      return body.status === 'completed' || body.status === 'failed';
    },
    `import ${id} to finish`,
    timeoutMs,
  );
  return body;
}

async function importCsv(t: TestTenant, csv: string, extra: Record<string, unknown> = {}) {
  const fileId = await upload(t, csv);
  const res = await startImport(t, { fileId, format: 'csv', mapping: MAPPING, onExisting: 'skip', ...extra }).expect(202);
  expect(res.body.data).toMatchObject({ status: 'queued', rowsRead: 0, progress: 0, workflowId: `lead-import/${res.body.data.id}` });
  return finished(t, res.body.data.id);
}

const leadsOf = (t: TestTenant) =>
  stack.db.query(
    `SELECT email, first_name, last_name, phone, source, custom_fields, id::text, created_at FROM leads
      WHERE tenant_id = $1 AND environment = 'live' ORDER BY created_at, id`,
    [t.tenant.id],
  );

describe('POST /v1/leads/imports', () => {
  it('imports a CSV (quoted fields, a line break inside quotes, CRLF) with source import, in file order, and reports failed rows by line', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const csv = [
      'Email,First name,Last name,Phone,Company',
      'ada@example.com,Ada,Lovelace,+44 20 7946 0018,"Babbage & Co, Ltd"',
      'not-an-email,Bad,Row,,',
      '"grace@example.com","Grace","Hopper",,"Navy ""Yard""\nAnnex"',
      'alan@example.com,Alan,,,',
      'ADA@example.com,Ada,Again,,',
      'linus@example.com,Linus,Torvalds,,',
    ].join('\r\n');
    const done = await importCsv(t, csv);
    expect(done).toMatchObject({ status: 'completed', rowsRead: 6, created: 3, updated: 0, skipped: 1, failed: 2, etaSeconds: 0 });
    expect(done.rate).toEqual(expect.any(Number));

    const leads = await leadsOf(t);
    expect(leads.map((l: { email: string }) => l.email)).toEqual(['ada@example.com', 'grace@example.com', 'linus@example.com']);
    expect(leads.every((l: { source: string }) => l.source === 'import')).toBe(true);
    expect(leads[1]).toMatchObject({ first_name: 'Grace', custom_fields: { company: 'Navy "Yard"\nAnnex' } });
    expect(leads[0]).toMatchObject({ phone: '+44 20 7946 0018', custom_fields: { company: 'Babbage & Co, Ltd' } });
    expect(Number(leads[0].id)).toBeLessThan(Number(leads[1].id));

    const found = await stack.http().get('/v1/search?q=lovelace&type=lead').set(t.live).expect(200);
    expect(found.body.data).toHaveLength(1);
    // The index step builds the document from the columns it reads back: each must arrive under its name.
    expect(found.body.data[0]).toMatchObject({
      id: encodeId('lead', leads[0].id),
      data: {
        email: 'ada@example.com',
        firstName: 'Ada',
        lastName: 'Lovelace',
        phone: '+44 20 7946 0018',
        status: 'new',
        source: 'import',
        customFields: { company: 'Babbage & Co, Ltd' },
      },
    });
    // Found by its custom fields and its phone too.
    const babbage = await stack.http().get('/v1/search?q=babbage&type=lead').set(t.live).expect(200);
    expect(babbage.body.data.map((d: { id: string }) => d.id)).toEqual([encodeId('lead', leads[0].id)]);
    const byPhone = await stack.http().get('/v1/search?q=020%207946%200018&type=lead').set(t.live).expect(200);
    expect(byPhone.body.data.map((d: { id: string }) => d.id)).toEqual([encodeId('lead', leads[0].id)]);

    const failures = await stack.http().get(`/v1/leads/imports/${done.id}/failures`).set(t.live).expect(200);
    expect(failures.body.data.map((f: { line: number; reason: string }) => [f.line, f.reason.split(':')[0]])).toEqual([
      [3, 'email'],
      [6, 'lastName'],
    ]);
    expect(failures.body.data[0].raw).toMatchObject({ Email: 'not-an-email', 'First name': 'Bad' });
    expect(failures.body.pagination).toMatchObject({ total: 2 });

    const download = await stack.http().get(`/v1/leads/imports/${done.id}/failures/download`).set(t.live).expect(200);
    expect(download.headers['content-type']).toMatch(/^text\/csv/);
    const lines = download.text.trim().split('\r\n');
    // The file's own columns follow line and reason, so the rows can be fixed and imported again.
    expect(lines[0]).toBe('line,reason,Email,First name,Last name,Phone,Company');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['3', '6']);
    expect(lines[1]).toMatch(/^3,email: Must be a valid email[^,]*,not-an-email,Bad,Row,,$/);

    const events = await stack.db.query(`SELECT type, data FROM events WHERE tenant_id = $1 ORDER BY id`, [t.tenant.id]);
    expect(events.map((e: { type: string }) => e.type)).toEqual(['lead.import.completed']);
    expect(events[0].data).toMatchObject({ importId: done.id, status: 'completed', created: 3, failed: 2, skipped: 1 });

    // The failures file, fixed, imports with the same mapping.
    const fixed = await importCsv(t, download.text.replace('not-an-email', 'fixed@example.com').replace(',Alan,,,', ',Alan,Turing,,'));
    expect(fixed).toMatchObject({ status: 'completed', rowsRead: 2, created: 2, failed: 0 });
  });

  it('applies the policies for existing emails: skip leaves them, update changes them, create adds another lead', async () => {
    const t = await newTenant(stack.db);
    await stack
      .http()
      .post('/v1/leads')
      .set(t.live)
      .send({ email: 'Existing@example.com', firstName: 'Old', lastName: 'Name', phone: '+1 415 555 0100', customFields: { tier: 'gold' } })
      .expect(201);
    const csv = 'Email,First name,Last name,Phone,Company\nexisting@example.com,Newton,Name,,Initech\nfresh@example.com,Fresh,Lead,,\n';

    expect(await importCsv(t, csv)).toMatchObject({ created: 1, skipped: 1, updated: 0 });
    let existing = (await leadsOf(t)).filter((l: { email: string }) => l.email.toLowerCase() === 'existing@example.com');
    expect(existing).toHaveLength(1);
    expect(existing[0]).toMatchObject({ first_name: 'Old' });

    expect(await importCsv(t, csv, { onExisting: 'update' })).toMatchObject({ created: 0, updated: 2, skipped: 0 });
    existing = (await leadsOf(t)).filter((l: { email: string }) => l.email.toLowerCase() === 'existing@example.com');
    expect(existing).toHaveLength(1);
    // Values the row leaves empty keep the lead's; custom fields merge.
    expect(existing[0]).toMatchObject({
      first_name: 'Newton',
      phone: '+1 415 555 0100',
      custom_fields: { tier: 'gold', company: 'Initech' },
    });
    const found = await stack.http().get('/v1/search?q=newton&type=lead').set(t.live).expect(200);
    expect(found.body.data).toHaveLength(1);
    // The updated document has the merged custom fields.
    const initech = await stack.http().get('/v1/search?q=initech%20gold&type=lead').set(t.live).expect(200);
    expect(initech.body.data.map((d: { id: string }) => d.id)).toEqual([found.body.data[0].id]);

    expect(await importCsv(t, csv, { onExisting: 'create' })).toMatchObject({ created: 2, updated: 0, skipped: 0 });
    expect((await leadsOf(t)).filter((l: { email: string }) => l.email.toLowerCase() === 'existing@example.com')).toHaveLength(2);
  });

  it('assigns imported leads and attributes them to partners by referral code, as POST /v1/leads does; an update changes the assignee, never the partner', async () => {
    const t = await newTenant(stack.db);
    const user = async () =>
      (
        await stack
          .http()
          .post('/v1/users')
          .set(t.live)
          .send({
            email: `rep-${Math.random().toString(36).slice(2)}@example.com`,
            password: 'correct horse',
            firstName: 'Rep',
            lastName: 'One',
          })
          .expect(201)
      ).body.data.id as string;
    const [rep, gone] = [await user(), await user()];
    await stack.http().delete(`/v1/users/${gone}`).set(t.live).expect(200);
    const partner = (
      await stack
        .http()
        .post('/v1/partners')
        .set(t.live)
        .send({ email: 'partner@example.com', firstName: 'Pat', lastName: 'Partner' })
        .expect(201)
    ).body.data;
    await stack.http().post(`/v1/partners/${partner.id}/approve`).set(t.live).expect(200);
    const code = (await stack.http().get(`/v1/partners/${partner.id}/referral-codes`).set(t.live)).body.data[0].code as string;
    const mapping = { email: 'Email', firstName: 'First', lastName: 'Last', assignedTo: 'Owner', referralCode: 'Ref' };
    const csv = (rows: string[]) => ['Email,First,Last,Owner,Ref', ...rows].join('\n') + '\n';
    const run = async (content: string, onExisting: string) => {
      const fileId = await upload(t, content);
      const res = await startImport(t, { fileId, format: 'csv', mapping, onExisting }).expect(202);
      return finished(t, res.body.data.id as string);
    };

    const first = await run(
      csv([
        `referred@example.com,Re,Ferred,${rep},${code.toLowerCase()}`,
        'plain@example.com,Pl,Ain,,',
        'badcode@example.com,Bad,Code,,NOPE1234',
        `inactive@example.com,In,Active,${gone},`,
      ]),
      'skip',
    );
    expect(first).toMatchObject({ created: 2, failed: 2 });
    const failures = (await stack.http().get(`/v1/leads/imports/${first.id}/failures`).set(t.live)).body.data;
    expect(failures.map((f: { line: number; reason: string }) => [f.line, f.reason.split(':')[0]])).toEqual([
      [4, 'referralCode'],
      [5, 'assignedTo'],
    ]);
    const lead = async (email: string) =>
      (await stack.http().get('/v1/leads?limit=100').set(t.live)).body.data.find((l: { email: string }) => l.email === email);
    const owner = (await lead('plain@example.com')).assignedTo;
    expect(await lead('referred@example.com')).toMatchObject({ assignedTo: rep, partnerId: partner.id, source: 'import' });
    expect(await lead('plain@example.com')).toMatchObject({ partnerId: null });
    expect(owner).not.toBe(rep);

    // An update row sets the assignee it names and keeps the partner: PATCH takes no referral code either.
    expect(await run(csv([`plain@example.com,Pl,Ain,${rep},${code}`, 'referred@example.com,Re,Ferred,,']), 'update')).toMatchObject({
      updated: 2,
      failed: 0,
    });
    expect(await lead('plain@example.com')).toMatchObject({ assignedTo: rep, partnerId: null });
    expect(await lead('referred@example.com')).toMatchObject({ assignedTo: rep, partnerId: partner.id });
  });

  it('checks imported leads for duplicates in their chunk: each lists the leads sharing its phone, and no lead-dedupe workflow starts', async () => {
    const t = await newTenant(stack.db);
    const desk = { email: 'front-desk@example.com', firstName: 'Front', lastName: 'Desk', phone: '+1 415 555 0199' };
    const older = (await stack.http().post('/v1/leads').set(t.live).send(desk).expect(201)).body.data.id as string;
    const staff = ['ann', 'bob', 'cy'].map((n) => `${n}@example.com,${n},Staff,+1 (415) 555-0199,Initech`);
    expect(await importCsv(t, csvOf(staff))).toMatchObject({ created: 3 });

    const imported = (await leadsOf(t)).filter((l: { email: string }) => l.email !== desk.email);
    const unchecked = await stack.db.query(`SELECT id FROM leads WHERE id = ANY($1::bigint[]) AND duplicates_checked_at IS NULL`, [
      imported.map((l: { id: string }) => l.id),
    ]);
    expect(unchecked).toEqual([]);
    for (const lead of imported) {
      const id = encodeId('lead', lead.id);
      const dupes = await stack.http().get(`/v1/leads/${id}/duplicates`).set(t.live).expect(200);
      const others = [
        older,
        ...imported.filter((l: { id: string }) => l.id !== lead.id).map((l: { id: string }) => encodeId('lead', l.id)),
      ];
      expect(dupes.body.data.map((d: { lead: { id: string }; reasons: string[] }) => [d.lead.id, d.reasons])).toEqual(
        expect.arrayContaining(others.map((o) => [o, ['phone']])),
      );
      await expect(stack.client.workflow.getHandle(`lead-dedupe/${id}`).describe()).rejects.toThrow(WorkflowNotFoundError);
    }
  });

  it('sends lead.updated with what each update row changed, only when asked and only for leads it changed', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const lead = await stack
      .http()
      .post('/v1/leads')
      .set(t.live)
      .send({ email: 'kept@example.com', firstName: 'Old', lastName: 'Name', customFields: { tier: 'gold' } })
      .expect(201);
    await stack.http().post('/v1/leads').set(t.live).send({ email: 'same@example.com', firstName: 'Same', lastName: 'Lead' }).expect(201);
    const updatedEvents = async () =>
      (await stack.db.query(`SELECT data FROM events WHERE tenant_id = $1 AND type = 'lead.updated' ORDER BY id`, [t.tenant.id])).map(
        (e: { data: unknown }) => e.data,
      );
    const csv = 'Email,First name,Last name,Phone,Company\nkept@example.com,Newton,Name,,Initech\nsame@example.com,Same,Lead,,\n';

    await importCsv(t, csv, { onExisting: 'update' });
    expect(await updatedEvents()).toEqual([]);

    const changed = csv.replace('Newton', 'Ada').replace('Initech', 'Hooli');
    await importCsv(t, changed, { onExisting: 'update', emitLeadEvents: true });
    // The unchanged row sends nothing; the changed one says what changed, as PATCH /v1/leads/:id does.
    const sent = [{ leadId: lead.body.data.id, changes: { firstName: 'Ada', customFields: { company: 'Hooli' } } }];
    expect(await updatedEvents()).toEqual(sent);
    // The same file again changes nothing: its rows still count as updated, and no event goes out.
    expect(await importCsv(t, changed, { onExisting: 'update', emitLeadEvents: true })).toMatchObject({ updated: 2 });
    expect(await updatedEvents()).toEqual(sent);
  });

  it('imports NDJSON, reporting lines that are not JSON objects, and sends lead.created events only when asked', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const ndjson = [
      JSON.stringify({ email: 'nd1@example.com', first: 'Nd', last: 'One', score: 40, plan: 'pro' }),
      '{not json',
      '',
      JSON.stringify({ email: 'nd2@example.com', first: 'Nd', last: 'Two' }),
    ].join('\n');
    const fileId = await upload(t, ndjson, 'application/x-ndjson');
    const mapping = { email: 'email', firstName: 'first', lastName: 'last', score: 'score', customFields: { plan: 'plan' } };
    const res = await startImport(t, { fileId, format: 'ndjson', mapping, onExisting: 'skip', emitLeadEvents: true }).expect(202);
    const done = await finished(t, res.body.data.id);
    expect(done).toMatchObject({ status: 'completed', rowsRead: 3, created: 2, failed: 1 });
    const failures = await stack.http().get(`/v1/leads/imports/${done.id}/failures`).set(t.live).expect(200);
    expect(failures.body.data).toEqual([{ line: 2, reason: 'Line is not valid JSON', raw: { line: '{not json' } }]);
    const download = await stack.http().get(`/v1/leads/imports/${done.id}/failures/download`).set(t.live).expect(200);
    expect(download.text).toBe('line,reason,values\r\n2,Line is not valid JSON,"{""line"":""{not json""}"\r\n');
    const lead = (await leadsOf(t))[0];
    expect(lead).toMatchObject({ email: 'nd1@example.com', custom_fields: { plan: 'pro' } });
    const events = await stack.db.query(`SELECT type FROM events WHERE tenant_id = $1 ORDER BY id`, [t.tenant.id]);
    expect(events.map((e: { type: string }) => e.type).sort()).toEqual(['lead.created', 'lead.created', 'lead.import.completed']);
  });

  it('enrolls imported leads in lead_created campaigns only when asked', async () => {
    const t = await newTenant(stack.db);
    const campaign = await triggeredCampaign(stack.http, t.live, 'lead_created', 'Import welcome');
    const enrolled = campaign.enrolledLeadIds;
    await importCsv(t, 'Email,First name,Last name,Phone,Company\nquiet@example.com,Q,Uiet,,\n');
    await autoEnrollmentsMade(stack.db, t.tenant.id);
    expect(await enrolled()).toEqual([]);

    await importCsv(t, 'Email,First name,Last name,Phone,Company\nasked@example.com,A,Sked,,\n', { triggerCampaigns: true });
    const asked = (await leadsOf(t)).find((l: { email: string }) => l.email === 'asked@example.com');
    await autoEnrollmentsMade(stack.db, t.tenant.id);
    expect(await enrolled()).toEqual([encodeId('lead', asked.id)]);
    await campaign.complete();
  });

  it('enrolls leads whose status an update import changed in lead_status_changed campaigns, only when asked', async () => {
    const t = await newTenant(stack.db);
    const campaign = await triggeredCampaign(stack.http, t.live, 'lead_status_changed', 'Status follow-up');
    const enrolled = campaign.enrolledLeadIds;
    const lead = async (email: string) =>
      (await stack.http().post('/v1/leads').set(t.live).send({ email, firstName: 'S', lastName: 'T' }).expect(201)).body.data.id;
    await lead('quiet@example.com');
    const moved = await lead('moved@example.com');
    await lead('same@example.com');
    const mapping = { ...MAPPING, status: 'Status' };
    const importUpdates = async (csv: string, triggerCampaigns: boolean) => {
      const fileId = await upload(t, csv);
      const res = await startImport(t, { fileId, format: 'csv', mapping, onExisting: 'update', triggerCampaigns }).expect(202);
      return finished(t, res.body.data.id);
    };
    const header = 'Email,First name,Last name,Phone,Company,Status\n';

    await importUpdates(`${header}quiet@example.com,S,T,,,contacted\n`, false);
    await autoEnrollmentsMade(stack.db, t.tenant.id);
    expect(await enrolled()).toEqual([]);
    // Only the lead whose status changed: a row that sets the status it already has changes nothing.
    expect(await importUpdates(`${header}moved@example.com,S,T,,,contacted\nsame@example.com,S,T,,,new\n`, true)).toMatchObject({
      updated: 2,
    });
    // Recorded by the chunk itself, and made by their own workflow.
    await autoEnrollmentsMade(stack.db, t.tenant.id);
    expect(await enrolled()).toEqual([moved]);
    await campaign.complete();
  });

  it('fails the rows that carry a NUL character, which PostgreSQL cannot store, and imports the rest', async () => {
    const t = await newTenant(stack.db);
    const csv = [
      'Email,First name,Last name,Phone,Company,No\u0000te',
      'ok@example.com,Ok,Row,,',
      'nul@example.com,A\u0000da,Row,,',
      'custom@example.com,Custom,Row,,Co\u0000rp',
      'after@example.com,After,Row,,',
    ].join('\n');
    const done = await importCsv(t, csv);
    expect(done).toMatchObject({ status: 'completed', rowsRead: 4, created: 2, failed: 2 });
    const failures = await stack.http().get(`/v1/leads/imports/${done.id}/failures`).set(t.live).expect(200);
    expect(failures.body.data.map((f: { line: number; reason: string }) => [f.line, f.reason])).toEqual([
      [3, 'firstName: Must not contain the NUL character (U+0000)'],
      [4, 'customFields.company: Must not contain the NUL character (U+0000)'],
    ]);
    // The stored values show where the character was.
    expect(failures.body.data[0].raw).toMatchObject({ 'First name': 'A\uFFFDda', 'No\uFFFDte': null });
    expect((await leadsOf(t)).map((l: { email: string }) => l.email)).toEqual(['ok@example.com', 'after@example.com']);
  });

  it("fails an update row that would give its lead more than 100 custom fields, and applies the email's row before it", async () => {
    const t = await newTenant(stack.db);
    const ninetyNine = Object.fromEntries(Array.from({ length: 99 }, (_, i) => [`k${i}`, i]));
    await stack
      .http()
      .post('/v1/leads')
      .set(t.live)
      .send({ email: 'full@example.com', firstName: 'Full', lastName: 'Lead', customFields: ninetyNine })
      .expect(201);
    const csv = [
      'Email,First name,Last name,Company,Region',
      'full@example.com,Full,Lead,Initech,',
      'new@example.com,New,Lead,Hooli,West',
      'full@example.com,Full,Lead,Globex,East',
      'new@example.com,New,Lead,Hooli,East',
    ];
    const fileId = await upload(t, csv.join('\n') + '\n');
    const mapping = {
      email: 'Email',
      firstName: 'First name',
      lastName: 'Last name',
      customFields: { company: 'Company', region: 'Region' },
    };
    const started = await startImport(t, { fileId, format: 'csv', mapping, onExisting: 'update' }).expect(202);
    expect(await finished(t, started.body.data.id)).toMatchObject({ status: 'completed', rowsRead: 4, created: 1, updated: 2, failed: 1 });
    const failures = await stack.http().get(`/v1/leads/imports/${started.body.data.id}/failures`).set(t.live).expect(200);
    expect(failures.body.data.map((f: { line: number; reason: string }) => [f.line, f.reason])).toEqual([
      [
        4,
        "customFields: This row's custom fields, added to the lead's, would give the lead 101 custom fields; a lead has at most 100: remove some first (a key set to null in a PATCH of customFields removes it)",
      ],
    ]);
    expect(failures.body.data[0].raw).toMatchObject({ Email: 'full@example.com', Company: 'Globex', Region: 'East' });
    const leads = await leadsOf(t);
    // The row before the failed one won: 100 fields, its company.
    expect(Object.keys(leads[0].custom_fields)).toHaveLength(100);
    expect(leads[0].custom_fields).toMatchObject({ k0: 0, k98: 98, company: 'Initech' });
    expect(leads[0].custom_fields.region).toBeUndefined();
    // A lead the chunk created is judged as it was created: the later row of its email applies.
    expect(leads[1]).toMatchObject({ email: 'new@example.com', custom_fields: { company: 'Hooli', region: 'East' } });
  });

  it("fails a row whose status is not one of the tenant's, naming the statuses and the one it probably meant", async () => {
    const t = await newTenant(stack.db);
    const csv = [
      'Email,First name,Last name,Status',
      'ok@example.com,Ok,Row,qualified',
      'cap@example.com,Cap,Row,Qualified',
      'odd@example.com,Odd,Row,zzz',
    ];
    const fileId = await upload(t, csv.join('\n') + '\n');
    const mapping = { email: 'Email', firstName: 'First name', lastName: 'Last name', status: 'Status' };
    const started = await startImport(t, { fileId, format: 'csv', mapping, onExisting: 'skip' }).expect(202);
    expect(await finished(t, started.body.data.id)).toMatchObject({ status: 'completed', rowsRead: 3, created: 1, failed: 2 });
    const failures = await stack.http().get(`/v1/leads/imports/${started.body.data.id}/failures`).set(t.live).expect(200);
    const wanted = `status: Must be one of the tenant's lead statuses (GET /v1/config/statuses?entityType=lead): "new", "contacted", "qualified", "unqualified"`;
    expect(failures.body.data.map((f: { line: number; reason: string }) => [f.line, f.reason])).toEqual([
      [3, `${wanted}; did you mean "qualified"?`],
      [4, wanted],
    ]);
  });

  it('fails a row longer than 1 MB without holding it, and answers 422 to a header that long or wider than 1,000 columns', async () => {
    const t = await newTenant(stack.db);
    const huge = 'x'.repeat(1_100_000);
    const done = await importCsv(
      t,
      `Email,First name,Last name,Phone,Company\nbefore@example.com,B,R,,\nhuge@example.com,H,R,,${huge}\nafter@example.com,A,R,,\n`,
    );
    expect(done).toMatchObject({ status: 'completed', rowsRead: 3, created: 2, failed: 1 });
    const failures = await stack.http().get(`/v1/leads/imports/${done.id}/failures`).set(t.live).expect(200);
    expect(failures.body.data).toEqual([{ line: 3, reason: 'Row is longer than 1048576 bytes', raw: {} }]);

    const fileId = await upload(t, `Email,First name,Last name,Phone,Company,${huge}\nx@example.com,X,Y,,,\n`);
    const res = await startImport(t, { fileId, format: 'csv', mapping: MAPPING, onExisting: 'skip' }).expect(422);
    expect(res.body.errors).toEqual([{ field: 'fileId', message: "The file's header row is longer than 1048576 bytes" }]);

    const columns = Array.from({ length: 1001 }, (_, i) => `C${i}`).join(',');
    const wide = await upload(t, `Email,First name,Last name,Phone,Company,${columns}\n`);
    const refused = await startImport(t, { fileId: wide, format: 'csv', mapping: MAPPING, onExisting: 'skip' }).expect(422);
    expect(refused.body.errors).toEqual([{ field: 'fileId', message: "The file's header has 1006 columns; an import reads at most 1000" }]);
  });

  it('answers 422 when the CSV header lacks a mapped column, reading only the header', async () => {
    const t = await newTenant(stack.db);
    const fileId = await upload(t, 'Email,First name\na@example.com,A\n');
    const res = await startImport(t, { fileId, format: 'csv', mapping: MAPPING, onExisting: 'skip' }).expect(422);
    expect(res.body.errors.map((d: { message: string }) => d.message)).toEqual(
      expect.arrayContaining(['Column "Last name" is not in the file\'s header', 'Column "Company" is not in the file\'s header']),
    );
    const list = await stack.http().get('/v1/leads/imports').set(t.live).expect(200);
    expect(list.body.data).toEqual([]);
  });

  it("is another tenant's 404, and the list shows only the caller's imports", async () => {
    const [owner, other] = [await newTenant(stack.db), await newTenant(stack.db)];
    const done = await importCsv(owner, 'Email,First name,Last name,Phone,Company\nx@example.com,X,Y,,\n');
    for (const path of [
      `/v1/leads/imports/${done.id}`,
      `/v1/leads/imports/${done.id}/failures`,
      `/v1/leads/imports/${done.id}/failures/download`,
    ]) {
      await stack.http().get(path).set(other.live).expect(404);
      await stack.http().get(path).set(owner.sandbox).expect(404);
    }
    // Another tenant's file cannot be imported: it is not found in the caller's scope.
    const ownersFile = await upload(owner, 'Email,First name,Last name,Phone,Company\n');
    const refused = await startImport(other, { fileId: ownersFile, format: 'csv', mapping: MAPPING, onExisting: 'skip' }).expect(422);
    expect(refused.body.errors).toEqual([{ field: 'fileId', message: 'File not found' }]);
    const mine = await stack.http().get('/v1/leads/imports').set(owner.live).expect(200);
    expect(mine.body.data.map((i: { id: string }) => i.id)).toEqual([done.id]);
    expect((await stack.http().get('/v1/leads/imports').set(other.live).expect(200)).body.data).toEqual([]);
  });

  it("fails the rows beyond the plan's row cap (10 x monthly calls, at least 10,000) with that reason", async () => {
    const t = await newTenant(stack.db);
    const limits = (monthlyCalls: number) =>
      stack.db.query(`UPDATE tenants SET custom_limits = $2 WHERE id = $1`, [t.tenant.id, { monthlyCalls, perMinute: 1e6, burst: 1e6 }]);
    await limits(500);
    const rows = Array.from({ length: 10_003 }, (_, i) => `cap-${i}@example.com,Row,C${i},,`);
    const done = await importCsv(t, csvOf(rows));
    expect(done).toMatchObject({ status: 'completed', rowCap: 10_000, rowsRead: 10_003, created: 10_000, failed: 3 });
    const failures = await stack.http().get(`/v1/leads/imports/${done.id}/failures`).set(t.live).expect(200);
    expect(failures.body.data.map((f: { line: number; reason: string }) => [f.line, f.reason])).toEqual(
      [10_002, 10_003, 10_004].map((line) => [line, "Over the import's row cap of 10000 rows"]),
    );

    // A cap larger than a row counter holds is the counter's limit, not an error.
    await limits(1e9);
    const fileId = await upload(t, 'Email,First name,Last name,Phone,Company\n');
    const big = await startImport(t, { fileId, format: 'csv', mapping: MAPPING, onExisting: 'skip' }).expect(202);
    expect(big.body.data.rowCap).toBe(2 ** 31 - 1);
    await finished(t, big.body.data.id);
  }, 60_000);

  it('imports a 20,000-row file completely, over several chunks, with createdAt in file order, refreshing the statistics as it grows', async () => {
    const t = await newTenant(stack.db);
    // Manual ANALYZEs only (autovacuum's count apart): the import's, at 5,000 and 20,000 leads.
    const analyzed = async () =>
      (await stack.db.query(`SELECT analyze_count::int AS n FROM pg_stat_user_tables WHERE relname = 'leads'`))[0].n as number;
    const analyzedBefore = await analyzed();
    const rows = Array.from({ length: 20_000 }, (_, i) => `big-${i}@example.com,Row,N${i},,Co ${i % 7}`);
    const done = await importCsv(t, csvOf(rows));
    expect(done).toMatchObject({ status: 'completed', rowsRead: 20_000, created: 20_000, failed: 0 });
    expect((await analyzed()) - analyzedBefore).toBeGreaterThanOrEqual(2);
    const leads = await leadsOf(t);
    expect(leads).toHaveLength(20_000);
    expect(leads.map((l: { last_name: string }) => l.last_name)).toEqual(rows.map((_, i) => `N${i}`));

    if (process.env.RECORD_HISTORIES) {
      const history = await stack.client.workflow.getHandle(done.workflowId as string).fetchHistory();
      writeFileSync(path.join(__dirname, 'histories', 'lead-import.json'), JSON.stringify(historyToObject(history), null, 1));
    }
  }, 120_000);
});

describe('lead imports without a running workflow', () => {
  // An app whose imports go to a task queue no worker polls: they stay queued until a test runs them.
  const idle = () => {
    const workflows = new WorkflowStarter(stack.client, `idle-${process.pid}-${Date.now()}`);
    const app = createApp({ db: stack.db, workflows, webhooks: { allowPrivateTargets: true } });
    return { http: () => request.agent(app), close: () => flushApp(app) };
  };
  const chunkActivities = () => createLeadImportActivities(stack.db, stack.workflows, createFileStorage(config));
  /** Starts an import in an idle app; `input` is what its workflow would give the first chunk. */
  const queuedImport = async (t: TestTenant, http: () => request.Agent, body: Record<string, unknown>) => {
    const created = await startImport(t, body, http).expect(202);
    const importId = decodeId('leadImport', created.body.data.id) as string;
    const [row] = await stack.db.query(`SELECT cursor::text, created_by::text FROM lead_imports WHERE id = $1`, [importId]);
    const input = {
      tenantId: t.tenant.id,
      environment: 'live' as const,
      importId,
      actorUserId: row.created_by,
      cursor: row.cursor as string,
    };
    return { id: created.body.data.id as string, workflowId: created.body.data.workflowId as string, input };
  };

  it('answers 409 to a 4th import while 3 are unfinished in the environment', async () => {
    const t = await newTenant(stack.db);
    const app = idle();
    try {
      const fileId = await upload(t, 'Email,First name,Last name,Phone,Company\na@example.com,A,B,,\n', 'text/csv', app.http);
      const body = { fileId, format: 'csv', mapping: MAPPING, onExisting: 'skip' };
      for (let i = 0; i < 3; i++) await startImport(t, body, app.http).expect(202);
      const res = await startImport(t, body, app.http).expect(409);
      expect(res.body.message).toMatch(/At most 3 imports can run at once/);
      // Their file stays while they read it.
      const deleted = await app.http().delete(`/v1/files/${fileId}`).set(t.live);
      expect([deleted.status, deleted.body.message]).toEqual([
        409,
        expect.stringMatching(/^The file is being imported \(imp[A-Za-z0-9]+, queued\); delete it once the import has finished$/),
      ]);
      // The sandbox is another environment: its own three.
      const sandboxFile = (
        await app.http().post('/v1/files/upload').set(t.sandbox).attach('file', Buffer.from('Email\n'), {
          filename: 'x.ndjson',
          contentType: 'application/x-ndjson',
        })
      ).body.data.id;
      await app
        .http()
        .post('/v1/leads/imports')
        .set(t.sandbox)
        .send({ ...body, fileId: sandboxFile, format: 'ndjson' })
        .expect(202);
    } finally {
      await app.close();
    }
  });

  it('answers a repeated Idempotency-Key with the same import, started once', async () => {
    const t = await newTenant(stack.db);
    const app = idle();
    try {
      const fileId = await upload(t, 'Email,First name,Last name,Phone,Company\na@example.com,A,B,,\n', 'text/csv', app.http);
      const body = { fileId, format: 'csv', mapping: MAPPING, onExisting: 'skip' };
      const key = `import-once-${process.pid}-${Date.now()}`;
      const first = await app
        .http()
        .post('/v1/leads/imports')
        .set({ ...t.live, 'Idempotency-Key': key })
        .send(body)
        .expect(202);
      const again = await app
        .http()
        .post('/v1/leads/imports')
        .set({ ...t.live, 'Idempotency-Key': key })
        .send(body)
        .expect(202);
      expect(again.body.data.id).toBe(first.body.data.id);
      const list = await stack.http().get('/v1/leads/imports').set(t.live).expect(200);
      expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([first.body.data.id]);
    } finally {
      await app.close();
    }
  });

  it('continues from the last committed chunk when a worker died after committing it', async () => {
    const t = await newTenant(stack.db);
    const app = idle();
    try {
      const rows = Array.from({ length: 7_000 }, (_, i) => `resume-${i}@example.com,Row,R${i},,`);
      const fileId = await upload(t, csvOf(rows), 'text/csv', app.http);
      const { id, workflowId, input } = await queuedImport(t, app.http, { fileId, format: 'csv', mapping: MAPPING, onExisting: 'skip' });
      // The first worker committed chunk one and died before reporting it.
      const firstChunk = await chunkActivities().importLeadChunk(input);
      expect(firstChunk).toMatchObject({ done: false, created: 5_000 });

      // A new run starts from the cursor the first one was given: it finds chunk one applied and goes on.
      await stack.client.workflow.execute(leadImportWorkflow, {
        taskQueue: stack.taskQueue,
        workflowId: `${workflowId}-resumed`,
        args: [input],
      });
      const done = await finished(t, id);
      expect(done).toMatchObject({ status: 'completed', rowsRead: 7_000, created: 7_000, failed: 0 });
      const leads = await leadsOf(t);
      expect(leads.map((l: { last_name: string }) => l.last_name)).toEqual(rows.map((_, i) => `R${i}`));
    } finally {
      await app.close();
    }
  }, 60_000);

  it('creates each email once when two skip imports of one file run side by side', async () => {
    const t = await newTenant(stack.db);
    const app = idle();
    try {
      const rows = Array.from({ length: 3_000 }, (_, i) => `twin-${i}@example.com,Twin,T${i},,`);
      const fileId = await upload(t, csvOf(rows), 'text/csv', app.http);
      const body = { fileId, format: 'csv', mapping: MAPPING, onExisting: 'skip' };
      const imports = [await queuedImport(t, app.http, body), await queuedImport(t, app.http, body)];

      const activities = chunkActivities();
      const results = await Promise.all(imports.map(({ input }) => activities.importLeadChunk(input)));
      expect(results.map((r) => [r.created, r.skipped]).sort()).toEqual([
        [0, 3_000],
        [3_000, 0],
      ]);
      expect(await leadsOf(t)).toHaveLength(3_000);
    } finally {
      await app.close();
    }
  }, 60_000);

  it('applies a chunk once: the same cursor twice writes no row twice', async () => {
    const t = await newTenant(stack.db);
    const app = idle();
    try {
      const csv = 'Email,First name,Last name,Phone,Company\nonce@example.com,Once,Only,,\ntwice@example.com,Not,Twice,,\n';
      const fileId = await upload(t, csv, 'text/csv', app.http);
      const { input } = await queuedImport(t, app.http, { fileId, format: 'csv', mapping: MAPPING, onExisting: 'create' });
      const activities = chunkActivities();

      const first = await activities.importLeadChunk(input);
      const again = await activities.importLeadChunk(input);
      expect(first).toMatchObject({ done: true, created: 2, rowsRead: 2, cursor: String(Buffer.byteLength(csv)) });
      expect(again).toEqual(first);
      expect(await leadsOf(t)).toHaveLength(2);
    } finally {
      await app.close();
    }
  });

  it('holds the statuses its chunk writes: a status deleted while the chunk waits fails its rows, and rows without one take the default as it is then', async () => {
    const t = await newTenant(stack.db);
    const app = idle();
    try {
      await stack.http().get('/v1/config/statuses?entityType=lead').set(t.live).expect(200); // seeds them
      const csv =
        'Email,First name,Last name,Status\nkept@example.com,Kept,K,contacted\ngone@example.com,Gone,G,unqualified\nplain@example.com,Plain,P,\n';
      const fileId = await upload(t, csv, 'text/csv', app.http);
      const mapping = { email: 'Email', firstName: 'First name', lastName: 'Last name', status: 'Status' };
      const { id, input } = await queuedImport(t, app.http, { fileId, format: 'csv', mapping, onExisting: 'create' });
      // An administrator's transaction, not committed yet: `unqualified` deleted, and the default
      // moved from `new` to `contacted` with `new` deleted, each row locked first as the API does.
      const runner = stack.db.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      const [{ pid }] = await runner.query('SELECT pg_backend_pid() AS pid');
      const lead = `tenant_id = $1 AND environment = 'live' AND entity_type = 'lead'`;
      await runner.query(`SELECT id FROM status_definitions WHERE ${lead} AND code IN ('unqualified', 'new') ORDER BY id FOR UPDATE`, [
        t.tenant.id,
      ]);
      for (const [code, isDefault] of [
        ['new', false],
        ['contacted', true],
      ]) {
        await runner.query(`UPDATE status_definitions SET is_default = $2 WHERE ${lead} AND code = $3`, [t.tenant.id, isDefault, code]);
      }
      await runner.query(`DELETE FROM status_definitions WHERE ${lead} AND code IN ('unqualified', 'new')`, [t.tenant.id]);
      const chunk = chunkActivities().importLeadChunk(input);
      try {
        await waitUntil(async () => {
          const [{ n }] = await stack.db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, [
            pid,
          ]);
          return n > 0;
        }, 'the chunk to wait for the transaction');
      } finally {
        await runner.commitTransaction();
        await runner.release();
      }
      expect(await chunk).toMatchObject({ done: true, rowsRead: 3, created: 2, failed: 1 });
      const failures = await stack.http().get(`/v1/leads/imports/${id}/failures`).set(t.live).expect(200);
      expect(failures.body.data.map((f: { line: number; reason: string }) => [f.line, f.reason])).toEqual([
        // The statuses there are once the chunk's transaction could go on.
        [3, 'status: Must be one of the tenant\'s lead statuses (GET /v1/config/statuses?entityType=lead): "contacted", "qualified"'],
      ]);
      const leads: { email: string; status: string }[] = await stack.db.query(
        `SELECT email, status FROM leads WHERE tenant_id = $1 AND environment = 'live' ORDER BY email`,
        [t.tenant.id],
      );
      expect(leads).toEqual([
        { email: 'kept@example.com', status: 'contacted' },
        { email: 'plain@example.com', status: 'contacted' },
      ]);
    } finally {
      await app.close();
    }
  });

  it("leaves a chunk's search documents to the index step, which skips a lead deleted meanwhile and keeps a newer document", async () => {
    const t = await newTenant(stack.db);
    const app = idle();
    try {
      const csv =
        'Email,First name,Last name,Phone,Company\nkept@example.com,Kept,Indexstep,,\ngone@example.com,Gone,Indexstep,,\nrenamed@example.com,Formername,Indexstep,,\n';
      const fileId = await upload(t, csv, 'text/csv', app.http);
      const { input } = await queuedImport(t, app.http, { fileId, format: 'csv', mapping: MAPPING, onExisting: 'skip' });
      const { cursor, ...ref } = input;
      const activities = chunkActivities();
      const search = async (q: string) =>
        (await stack.http().get(`/v1/search?q=${q}&type=lead`).set(t.live).expect(200)).body.data.map((d: { id: string }) => d.id);

      const chunk = await activities.importLeadChunk({ ...input, indexLater: true });
      const leads = await leadsOf(t);
      const [kept, gone, renamed] = leads.map((l: { id: string }) => encodeId('lead', l.id));
      expect(chunk).toMatchObject({ done: true, created: 3, indexRange: { from: leads[0].id, to: leads[2].id } });
      expect(await search('indexstep')).toEqual([]);
      // A retry of the chunk after its commit (its result lost) finds it applied and names the same leads.
      expect(await activities.importLeadChunk({ ...ref, cursor, indexLater: true })).toEqual(chunk);

      // Meanwhile one lead is deleted and another renamed (its document written by the PATCH).
      await stack.http().delete(`/v1/leads/${gone}`).set(t.live).expect(200);
      await stack.http().patch(`/v1/leads/${renamed}`).set(t.live).send({ firstName: 'Latername' }).expect(200);

      for (let run = 0; run < 2; run++) {
        expect(await activities.indexImportedLeads({ ...ref, range: chunk.indexRange as { from: string; to: string } })).toBe(2);
        expect((await search('indexstep')).sort()).toEqual([kept, renamed].sort());
        expect(await search('latername')).toEqual([renamed]);
        expect(await search('formername')).toEqual([]);
      }
    } finally {
      await app.close();
    }
  });
});
