import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeId } from '../lib/ids';
import { objectKey } from '../lib/files/file-storage';
import { S3FileStorage } from '../lib/files/s3-storage';
import { pendingUploadSweepWorkflow } from '../workflows/pending-upload-sweep';
import { historyToObject } from './support/history';
import { MOTO_CREDENTIALS, startMotoS3, type MotoS3 } from './support/moto-server';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';

/**
 * The app with FILES_DRIVER=s3 semantics against moto's S3-compatible server (a real HTTP S3 API),
 * reached through a relay the outage test cuts; `moto.exists` asks moto directly.
 */
let moto: MotoS3;
let relay: TcpProxy;
let stack: TestStack;
let s3: S3FileStorage;
const URL_TTL_SECONDS = 300;

beforeAll(async () => {
  moto = await startMotoS3();
  relay = await startTcpProxy(moto.endpoint);
  const storage = new S3FileStorage({
    bucket: moto.bucket,
    region: 'us-east-1',
    endpoint: relay.endpoint,
    forcePathStyle: true,
    credentials: MOTO_CREDENTIALS,
  });
  s3 = storage;
  stack = await startStack({ appDeps: { files: { storage, urlTtlSeconds: URL_TTL_SECONDS } }, activityDeps: { files: storage } });
});
afterAll(async () => {
  await stack?.stop();
  await relay?.close();
  await moto?.stop();
});

const keyOf = (t: TestTenant, id: string) => objectKey({ tenantId: t.tenant.id, environment: 'sandbox' }, decodeId('file', id) as string);

const startUpload = (t: TestTenant, body: Record<string, unknown>) =>
  stack
    .http()
    .post('/v1/files/uploads')
    .set(t.sandbox)
    .send({ fileName: 'deck.pdf', contentType: 'application/pdf', size: 11, ...body });

/** A multipart upload through the API (POST /v1/files/upload). */
const uploadFile = (headers: Record<string, string>, text: string, file: { filename: string; contentType: string }) =>
  stack.http().post('/v1/files/upload').set(headers).attach('file', Buffer.from(text), file);

/** What a browser or script does with the upload instructions: a plain PUT, no credentials. */
const putTo = (upload: { url: string; method: string; headers: Record<string, string> }, bytes: string) =>
  fetch(upload.url, { method: upload.method, headers: upload.headers, body: bytes });

/** The file's removal record (domain/file-removals.ts), if it has one left. */
async function removalOf(id: string): Promise<{ removeAfter: Date } | undefined> {
  const rows = await stack.db.query(`SELECT remove_after AS "removeAfter" FROM file_removals WHERE file_id = $1`, [decodeId('file', id)]);
  return rows[0];
}

/** The hourly file sweep, run now (as its schedule would); with RECORD_HISTORIES=1 its history is kept for the replay test. */
async function sweepFiles(recordAs?: string) {
  const handle = await stack.client.workflow.start(pendingUploadSweepWorkflow, {
    taskQueue: stack.taskQueue,
    workflowId: `file-sweep-test-${Date.now()}`,
    args: [{}],
  });
  const result = await handle.result();
  if (recordAs && process.env.RECORD_HISTORIES) {
    writeFileSync(path.join(__dirname, 'histories', recordAs), JSON.stringify(historyToObject(await handle.fetchHistory()), null, 1));
  }
  return result;
}

describe('files on S3-compatible storage', () => {
  it('signs presigned URLs for S3_PUBLIC_ENDPOINT when clients reach the bucket under another host name', async () => {
    // The app talks to moto as 127.0.0.1, clients as localhost: the URL must be signed for the latter.
    const publicEndpoint = moto.endpoint.replace('127.0.0.1', 'localhost');
    expect(publicEndpoint).not.toBe(moto.endpoint);
    const storage = new S3FileStorage({
      bucket: moto.bucket,
      region: 'us-east-1',
      endpoint: moto.endpoint,
      publicEndpoint,
      forcePathStyle: true,
      credentials: MOTO_CREDENTIALS,
    });
    const key = `public-endpoint-${Date.now()}`;
    const upload = await storage.uploadUrl(key, { contentType: 'text/plain', size: 5 }, 60);
    expect(upload.url.startsWith(`${publicEndpoint}/${moto.bucket}/${key}?`)).toBe(true);
    expect((await putTo(upload, 'hello')).status).toBe(200);
    expect(await storage.head(key)).toMatchObject({ size: 5 }); // read back through the internal endpoint
    const download = await storage.downloadUrl(key, { filename: 'hello.txt', contentType: 'text/plain' }, 60);
    expect(download.url.startsWith(`${publicEndpoint}/`)).toBe(true);
    const got = await fetch(download.url);
    expect([got.status, await got.text()]).toEqual([200, 'hello']);
  });

  it('reads an object from a byte offset (a Range request), as lead imports resume from their cursor', async () => {
    const t = await newTenant(stack.db);
    const csv = 'email,first,last\ns3@example.com,Ada,Bucket\n';
    const res = await uploadFile(t.live, csv, { filename: 'leads.csv', contentType: 'text/csv' }).expect(201);
    const key = objectKey({ tenantId: t.tenant.id, environment: 'live' }, decodeId('file', res.body.data.id) as string);
    const tail: Buffer[] = [];
    for await (const chunk of await s3.open(key, { start: 17 })) tail.push(chunk as Buffer);
    expect(Buffer.concat(tail).toString()).toBe('s3@example.com,Ada,Bucket\n');

    const mapping = { email: 'email', firstName: 'first', lastName: 'last' };
    const created = await stack
      .http()
      .post('/v1/leads/imports')
      .set(t.live)
      .send({ fileId: res.body.data.id, format: 'csv', mapping, onExisting: 'skip' })
      .expect(202);
    await stack.client.workflow.getHandle(created.body.data.workflowId).result();
    const done = await stack.http().get(`/v1/leads/imports/${created.body.data.id}`).set(t.live).expect(200);
    expect(done.body.data).toMatchObject({ status: 'completed', created: 1, failed: 0 });
  });

  it('stores a multipart upload in the bucket, serves it via /content and deletes the object', async () => {
    const t = await newTenant(stack.db);
    const res = await uploadFile(t.sandbox, 'hello, bucket', { filename: 'hello.txt', contentType: 'text/plain' });
    expect(res.status).toBe(201);
    const file = res.body.data;
    expect(file).toMatchObject({ filename: 'hello.txt', size: 13, status: 'ready' });
    expect(await moto.exists(keyOf(t, file.id))).toBe(true);

    const content = await stack.http().get(`/v1/files/${file.id}/content`).set(t.sandbox).buffer(true);
    expect([content.status, content.text]).toEqual([200, 'hello, bucket']);
    expect(content.headers['content-disposition']).toBe(`attachment; filename="hello.txt"; filename*=UTF-8''hello.txt`);

    expect((await stack.http().delete(`/v1/files/${file.id}`).set(t.sandbox)).status).toBe(200);
    expect(await moto.exists(keyOf(t, file.id))).toBe(false);
    expect(await removalOf(file.id)).toBeUndefined(); // removed: nothing left for the sweep
  });

  it('deletes a file while S3 is unreachable: 200, and the hourly sweep removes its bytes once S3 is back', async () => {
    const t = await newTenant(stack.db);
    const res = await uploadFile(t.sandbox, 'kept too long', { filename: 'notes.txt', contentType: 'text/plain' }).expect(201);
    const id = res.body.data.id;
    await relay.cut();
    try {
      await stack.http().delete(`/v1/files/${id}`).set(t.sandbox).expect(200);
    } finally {
      await relay.restore();
    }
    await stack.http().get(`/v1/files/${id}`).set(t.sandbox).expect(404);
    expect(await moto.exists(keyOf(t, id))).toBe(true); // the removal after the commit failed
    expect((await removalOf(id))?.removeAfter.getTime()).toBeLessThanOrEqual(Date.now());

    expect((await sweepFiles()).removed).toBeGreaterThanOrEqual(1);
    expect(await moto.exists(keyOf(t, id))).toBe(false);
    expect(await removalOf(id)).toBeUndefined();
  });

  it("removes what a deleted direct upload's URL stores after the delete, once the URL has expired", async () => {
    const t = await newTenant(stack.db);
    const { upload, id } = (await startUpload(t, {})).body.data;
    await stack.http().delete(`/v1/files/${id}`).set(t.sandbox).expect(200);
    // S3's presigned PUT cannot be revoked: it still stores bytes under the deleted file's key.
    expect((await putTo(upload, '%PDF-1.7 ok')).status).toBe(200);
    expect(await moto.exists(keyOf(t, id))).toBe(true);
    const removeAfter = (await removalOf(id))?.removeAfter.getTime() as number;
    expect(removeAfter).toBeGreaterThanOrEqual(Date.parse(upload.expiresAt));
    expect(removeAfter - Date.parse(upload.expiresAt)).toBeLessThan(120_000);

    await sweepFiles(); // before the URL expires: the bytes stay, and so does the record
    expect(await moto.exists(keyOf(t, id))).toBe(true);
    await stack.db.query(`UPDATE file_removals SET remove_after = now() - interval '1 second' WHERE file_id = $1`, [decodeId('file', id)]);
    expect((await sweepFiles('file-sweep-removals.json')).removed).toBeGreaterThanOrEqual(1);
    expect(await moto.exists(keyOf(t, id))).toBe(false);
    expect(await removalOf(id)).toBeUndefined();
  });

  it('hands out a presigned PUT, completes the upload and serves it through a presigned GET', async () => {
    const t = await newTenant(stack.db);
    const lead = (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead())).body.data;
    const started = await startUpload(t, { fileName: 'Q3 "deck".pdf', entityType: 'lead', entityId: lead.id });
    expect(started.status).toBe(201);
    const { upload, ...file } = started.body.data;
    expect(file).toMatchObject({ filename: 'Q3 _deck_.pdf', size: 11, status: 'pending', sha256: null, entityId: lead.id });
    expect(upload).toMatchObject({ method: 'PUT', headers: { 'Content-Type': 'application/pdf' } });
    expect(upload.url.startsWith(`${relay.endpoint}/${moto.bucket}/${keyOf(t, file.id)}?`)).toBe(true);
    expect(Date.parse(upload.expiresAt) - Date.now()).toBeGreaterThan(250_000);

    // Pending: not listed, no content, no download URL.
    expect((await stack.http().get(`/v1/files?entityType=lead&entityId=${lead.id}`).set(t.sandbox)).body.data).toEqual([]);
    expect((await stack.http().get(`/v1/files/${file.id}/content`).set(t.sandbox)).status).toBe(409);
    expect((await stack.http().get(`/v1/files/${file.id}/download-url`).set(t.sandbox)).status).toBe(409);

    expect((await putTo(upload, '%PDF-1.7 ok')).status).toBe(200);
    const completed = await stack.http().post(`/v1/files/${file.id}/complete`).set(t.sandbox);
    expect([completed.status, completed.body.data]).toEqual([200, { ...file, status: 'ready' }]);
    expect((await stack.http().post(`/v1/files/${file.id}/complete`).set(t.sandbox)).body).toMatchObject({
      status: 409,
      message: 'File upload is already complete',
    });
    const listed = await stack.http().get(`/v1/files?entityType=lead&entityId=${lead.id}`).set(t.sandbox);
    expect(listed.body.data.map((f: { id: string }) => f.id)).toEqual([file.id]);

    const download = (await stack.http().get(`/v1/files/${file.id}/download-url`).set(t.sandbox)).body.data;
    expect(download).toMatchObject({ method: 'GET', headers: {} });
    expect(Date.parse(download.expiresAt) - Date.now()).toBeLessThanOrEqual(300_000);
    const fetched = await fetch(download.url);
    expect(await fetched.text()).toBe('%PDF-1.7 ok');
    expect(fetched.headers.get('content-type')).toBe('application/pdf');
    expect(fetched.headers.get('content-disposition')).toBe(`attachment; filename="Q3 _deck_.pdf"; filename*=UTF-8''Q3%20_deck_.pdf`);
    const content = await stack.http().get(`/v1/files/${file.id}/content`).set(t.sandbox).buffer(true);
    expect(String(content.body)).toBe('%PDF-1.7 ok');
  });

  it('refuses to complete before the upload (409) and when the stored size differs (409, object removed)', async () => {
    const t = await newTenant(stack.db);
    const { upload, id } = (await startUpload(t, {})).body.data;
    const early = await stack.http().post(`/v1/files/${id}/complete`).set(t.sandbox);
    expect([early.status, early.body.message]).toEqual([409, 'Nothing has been uploaded for this file yet']);

    /** Puts `bytes`, then completes: refused with `mismatch`, and the object removed. */
    const refusedAtCompletion = async (bytes: string, mismatch: string) => {
      await putTo(upload, bytes);
      const res = await stack.http().post(`/v1/files/${id}/complete`).set(t.sandbox);
      expect([res.status, res.body.message]).toEqual([409, `Upload does not match the file: ${mismatch}`]);
      expect(await moto.exists(keyOf(t, id))).toBe(false);
    };
    // moto does not check signatures, so this lands; AWS S3 refuses it already (the length is signed).
    await refusedAtCompletion('short', '5 bytes were uploaded; 11 were declared');
    expect((await stack.http().get(`/v1/files/${id}`).set(t.sandbox)).body.data.status).toBe('pending');
    // The right length, but an HTML page declared as a PDF: its first bytes are read from the bucket.
    await refusedAtCompletion(
      '<html>x</p>',
      'Content is not a application/pdf file; send it with its real type, or as application/octet-stream',
    );
  });

  it('validates upload requests with the multipart allow-list and the direct-upload size limit (422)', async () => {
    const t = await newTenant(stack.db);
    const html = await startUpload(t, { fileName: 'x.html', contentType: 'text/html' });
    expect([html.status, html.body.errors]).toEqual([422, [{ field: 'contentType', message: 'Files of type text/html are not accepted' }]]);
    const huge = await startUpload(t, { size: 2 ** 31 });
    expect([huge.status, huge.body.errors[0].field]).toEqual([422, 'size']);
    const owner = await startUpload(t, { entityType: 'lead' });
    expect(owner.body.errors).toEqual([{ field: 'entityId', message: 'entityType and entityId go together' }]);
    expect((await stack.http().get('/v1/files').set(t.sandbox)).body.data).toEqual([]);
  });

  it("answers 404 for another tenant's or environment's file on complete and download-url", async () => {
    const t = await newTenant(stack.db);
    const other = await newTenant(stack.db);
    const { upload, id } = (await startUpload(t, {})).body.data;
    await putTo(upload, '%PDF-1.7 ok');
    for (const headers of [other.sandbox, t.live]) {
      expect((await stack.http().post(`/v1/files/${id}/complete`).set(headers)).status).toBe(404);
      expect((await stack.http().get(`/v1/files/${id}/download-url`).set(headers)).status).toBe(404);
    }
    expect((await stack.http().post(`/v1/files/${id}/complete`).set(t.sandbox)).status).toBe(200);
    expect((await stack.http().get(`/v1/files/${id}/download-url`).set(other.sandbox)).status).toBe(404);
  });
});
