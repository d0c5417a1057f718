import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { QueryRunner } from 'typeorm';
import { decodeId, encodeId } from '../lib/ids';
import { config } from '../lib/config';
import { ApiSignedUrls } from '../lib/files/api-signed-urls';
import { objectKey } from '../lib/files/file-storage';
import { localPathOf } from '../lib/files/local-storage';
import { interleave } from './support/interleave';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const upload = (
  t: TestTenant,
  content: Buffer | string,
  opts: { filename?: string; contentType?: string; fields?: Record<string, string> } = {},
) => {
  const req = stack.http().post('/v1/files/upload').set(t.sandbox);
  for (const [k, v] of Object.entries(opts.fields ?? {})) req.field(k, v);
  return req.attach('file', Buffer.from(content), {
    filename: opts.filename ?? 'notes.txt',
    contentType: opts.contentType ?? 'text/plain',
  });
};
const bytesOf = (t: TestTenant, id: string) =>
  localPathOf(objectKey({ tenantId: t.tenant.id, environment: 'sandbox' }, decodeId('file', id) as string));

describe('files', () => {
  it('uploads a file for a lead, serves its metadata and bytes, and deletes both', async () => {
    const t = await newTenant(stack.db);
    const lead = (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead())).body.data;
    const res = await upload(t, 'hello, world', { filename: 'brief.txt', fields: { entityType: 'lead', entityId: lead.id } });
    expect(res.status).toBe(201);
    const file = res.body.data;
    expect(file).toMatchObject({ filename: 'brief.txt', contentType: 'text/plain', size: 12, entityType: 'lead', entityId: lead.id });
    expect(file.id).toMatch(/^fil/);
    expect(file.sha256).toBe('09ca7e4eaa6e8ae9c7d261167129184883644d07dfba7cbfbc4c8a2e08360d5b');
    expect(existsSync(bytesOf(t, file.id))).toBe(true);
    expect(bytesOf(t, file.id).startsWith(path.resolve(config.FILES_DIR as string))).toBe(true);

    expect((await stack.http().get(`/v1/files/${file.id}`).set(t.sandbox)).body.data).toEqual(file);
    const content = await stack.http().get(`/v1/files/${file.id}/content`).set(t.sandbox).buffer(true);
    expect(content.status).toBe(200);
    expect(content.headers['content-type']).toMatch(/^text\/plain/);
    expect(content.headers['content-disposition']).toBe(`attachment; filename="brief.txt"; filename*=UTF-8''brief.txt`);
    expect(content.text).toBe('hello, world');

    expect((await stack.http().delete(`/v1/files/${file.id}`).set(t.sandbox)).status).toBe(200);
    expect(existsSync(bytesOf(t, file.id))).toBe(false);
    // Removed after the commit: no removal is left for the sweep (domain/file-removals.ts).
    expect(await stack.db.query(`SELECT 1 FROM file_removals WHERE file_id = $1`, [decodeId('file', file.id)])).toEqual([]);
    expect((await stack.http().get(`/v1/files/${file.id}/content`).set(t.sandbox)).status).toBe(404);
    // The audit log files the upload and the delete under one resource type.
    await stack
      .http()
      .post('/v1/files/uploads')
      .set(t.sandbox)
      .send({ fileName: 'a.pdf', contentType: 'application/pdf', size: 5 })
      .expect(201);
    const audit = await stack.http().get('/v1/audit-logs?resourceType=files').set(t.sandbox).expect(200);
    expect(audit.body.data.map((e: { action: string }) => e.action).sort()).toEqual([
      'DELETE /v1/files/:id',
      'POST /v1/files/upload',
      'POST /v1/files/uploads',
    ]);
  });

  it("keeps a deleted record's files, unattached, instead of naming a record that is gone", async () => {
    const t = await newTenant(stack.db);
    const lead = (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead())).body.data;
    const task = (await stack.http().post('/v1/tasks').set(t.sandbox).send({ title: 'Call' })).body.data;
    const files = [];
    for (const [entityType, entityId] of [
      ['lead', lead.id],
      ['task', task.id],
    ]) {
      files.push((await upload(t, 'cv', { filename: 'cv.txt', fields: { entityType, entityId } }).expect(201)).body.data.id);
    }
    await stack.http().delete(`/v1/leads/${lead.id}`).set(t.sandbox).expect(200);
    await stack.http().delete(`/v1/tasks/${task.id}`).set(t.sandbox).expect(200);
    for (const id of files) {
      expect((await stack.http().get(`/v1/files/${id}`).set(t.sandbox)).body.data).toMatchObject({ entityType: null, entityId: null });
      expect((await stack.http().get(`/v1/files/${id}/content`).set(t.sandbox)).status).toBe(200);
    }
  });

  it('refuses files over the size limit (413), refused types (415) and non-multipart bodies (415)', async () => {
    const t = await newTenant(stack.db);
    const big = await upload(t, Buffer.alloc(config.FILE_UPLOAD_MAX_BYTES + 1, 'a'));
    expect([big.status, big.body.message]).toEqual([
      413,
      `File exceeds the ${config.FILE_UPLOAD_MAX_BYTES.toLocaleString('en-US')}-byte limit of this endpoint; upload larger files with POST /v1/files/uploads (a presigned URL)`,
    ]);
    const html = await upload(t, '<script>alert(1)</script>', { filename: 'x.html', contentType: 'text/html' });
    expect([html.status, html.body.message]).toEqual([415, 'Files of type text/html are not accepted']);
    const json = await stack.http().post('/v1/files/upload').set(t.sandbox).send({ file: 'x' });
    expect(json.status).toBe(415);
    expect((await stack.http().get('/v1/files').set(t.sandbox)).body.data).toEqual([]);
  });

  it('refuses an empty file alike whichever way it comes: a 422 on the part or size that carries it, saying to send its content', async () => {
    const t = await newTenant(stack.db);
    const empty = 'File is empty (0 bytes); send the file with its content';
    const multipart = await upload(t, '', { filename: 'empty.txt' });
    expect([multipart.status, multipart.body.message, multipart.body.errors]).toEqual([
      422,
      'Validation failed',
      [{ field: 'file', message: empty }],
    ]);
    // Said before the type's signature is checked: there is no content to be of the wrong type.
    const png = await upload(t, '', { filename: 'empty.png', contentType: 'image/png' });
    expect([png.status, png.body.errors]).toEqual([422, [{ field: 'file', message: empty }]]);
    const direct = await stack
      .http()
      .post('/v1/files/uploads')
      .set(t.sandbox)
      .send({ fileName: 'empty.txt', contentType: 'text/plain', size: 0 });
    expect([direct.status, direct.body.message, direct.body.errors]).toEqual([
      422,
      'Validation failed',
      [{ field: 'size', message: empty }],
    ]);
    const negative = await stack
      .http()
      .post('/v1/files/uploads')
      .set(t.sandbox)
      .send({ fileName: 'empty.txt', contentType: 'text/plain', size: -1 });
    expect([negative.status, negative.body.errors]).toEqual([422, [{ field: 'size', message: expect.not.stringContaining('empty') }]]);
    expect((await stack.http().get('/v1/files').set(t.sandbox)).body.data).toEqual([]);
    expect((await stack.db.query(`SELECT count(*)::int AS n FROM files WHERE tenant_id = $1`, [t.tenant.id]))[0].n).toBe(0);
  });

  it('names a form part given more than once with a 422 saying so, and stores nothing', async () => {
    const t = await newTenant(stack.db);
    const lead = (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead())).body.data;
    const twoFiles = await stack
      .http()
      .post('/v1/files/upload')
      .set(t.sandbox)
      .attach('file', Buffer.from('one'), 'one.txt')
      .attach('file', Buffer.from('two'), 'two.txt');
    expect([twoFiles.status, twoFiles.body.errors]).toEqual([
      422,
      [{ field: 'file', message: 'Given more than once; send one file per upload' }],
    ]);
    const twoTypes = await upload(t, 'x', { fields: { entityId: lead.id } })
      .field('entityType', 'lead')
      .field('entityType', 'lead');
    expect([twoTypes.status, twoTypes.body.errors]).toEqual([
      422,
      [{ field: 'entityType', message: 'Given more than once; give it once' }],
    ]);
    const both = await stack
      .http()
      .post('/v1/files/upload')
      .set(t.sandbox)
      .field('entityType', 'lead')
      .field('entityId', lead.id)
      .field('entityId', lead.id)
      .field('entityType', 'task')
      .attach('file', Buffer.from('x'), 'x.txt');
    expect([both.status, both.body.errors]).toEqual([
      422,
      [
        { field: 'entityType', message: 'Given more than once; give it once' },
        { field: 'entityId', message: 'Given more than once; give it once' },
      ],
    ]);
    expect((await stack.db.query(`SELECT count(*)::int AS n FROM files WHERE tenant_id = $1`, [t.tenant.id]))[0].n).toBe(0);
  });

  it('validates the form fields with 422 errors', async () => {
    const t = await newTenant(stack.db);
    const other = await newTenant(stack.db);
    const foreign = (await stack.http().post('/v1/leads').set(other.sandbox).send(validLead())).body.data;
    const missing = await stack.http().post('/v1/files/upload').set(t.sandbox).field('entityType', 'lead');
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([{ field: 'file', message: 'Required' }]);
    const half = await upload(t, 'x', { fields: { entityType: 'lead' } });
    expect(half.body.errors).toEqual([{ field: 'entityId', message: 'entityType and entityId go together' }]);
    const wrongType = await upload(t, 'x', { fields: { entityType: 'partner', entityId: foreign.id } });
    expect(wrongType.body.errors).toEqual([{ field: 'entityId', message: 'Must be a valid partner ID' }]);
    const notMine = await upload(t, 'x', { fields: { entityType: 'lead', entityId: foreign.id } });
    expect(notMine.body.errors).toEqual([{ field: 'entityId', message: 'Lead not found' }]);
    const foreignDeal = (await stack.http().post('/v1/opportunities').set(other.sandbox).send({ name: 'Theirs', value: 1 })).body.data;
    const notMyDeal = await upload(t, 'x', { fields: { entityType: 'opportunity', entityId: foreignDeal.id } });
    expect(notMyDeal.body.errors).toEqual([{ field: 'entityId', message: 'Opportunity not found' }]);
    const extra = await upload(t, 'x', { fields: { colour: 'blue' } });
    expect(extra.body.errors).toEqual([{ field: 'colour', message: 'Unknown field; the fields here are entityType, entityId' }]);
    const misnamed = await stack.http().post('/v1/files/upload').set(t.sandbox).attach('document', Buffer.from('x'), 'a.txt');
    expect(misnamed.body.errors).toEqual([{ field: 'file', message: 'Unexpected file part "document"; name the file part "file"' }]);
  });

  it('lists files by owning record with pagination; other tenants and environments see nothing', async () => {
    const t = await newTenant(stack.db);
    const opp = (await stack.http().post('/v1/opportunities').set(t.sandbox).send({ name: 'Deal', value: 1 }).expect(201)).body.data.id;
    for (let i = 0; i < 3; i++) await upload(t, `v${i}`, { filename: `v${i}.txt`, fields: { entityType: 'opportunity', entityId: opp } });
    const loose = (await upload(t, 'loose')).body.data;
    const page = await stack.http().get(`/v1/files?entityType=opportunity&entityId=${opp}&limit=2&page=2`).set(t.sandbox);
    expect(page.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, hasNext: false, hasPrev: true });
    expect(page.body.data.map((f: { filename: string }) => f.filename)).toEqual(['v0.txt']);
    expect((await stack.http().get('/v1/files').set(t.sandbox)).body.pagination.total).toBe(4);
    // Each filter stands alone (the ID's prefix names its kind); an ID of another kind matches nothing;
    // a value that is no ID at all is a 400.
    const names = async (query: string) => {
      const res = await stack.http().get(`/v1/files?${query}`).set(t.sandbox);
      expect(res.status).toBe(200);
      return res.body.data.map((f: { filename: string }) => f.filename).sort();
    };
    expect(await names('entityType=opportunity')).toEqual(['v0.txt', 'v1.txt', 'v2.txt']);
    expect(await names(`entityId=${opp}`)).toEqual(['v0.txt', 'v1.txt', 'v2.txt']);
    expect(await names('entityType=lead')).toEqual([]);
    expect(await names(`entityType=lead&entityId=${opp}`)).toEqual([]);
    expect(await names(`entityId=${encodeId('opportunity', decodeId('opportunity', opp) + '0')}`)).toEqual([]);
    const notAnId = await stack.http().get('/v1/files?entityType=lead&entityId=0000000000000000').set(t.sandbox);
    expect([notAnId.status, notAnId.body.errors]).toEqual([
      400,
      [{ field: 'entityId', message: 'Must be the ID of a lead, opportunity, partner or task' }],
    ]);
    const other = await newTenant(stack.db);
    expect((await stack.http().get(`/v1/files/${loose.id}/content`).set(other.sandbox)).status).toBe(404);
    expect((await stack.http().get(`/v1/files/${loose.id}`).set(t.live)).status).toBe(404);
    expect((await stack.http().get('/v1/files').set(t.live)).body.data).toEqual([]);
  });

  it('answers the presigned-URL flow on the local driver with URLs the API signs and serves itself', async () => {
    const t = await newTenant(stack.db);
    const started = await stack
      .http()
      .post('/v1/files/uploads')
      .set(t.sandbox)
      .send({ fileName: 'deck.pdf', contentType: 'application/pdf', size: 11 });
    expect(started.status).toBe(201);
    const { upload, ...file } = started.body.data;
    expect(upload).toMatchObject({ method: 'PUT', headers: { 'Content-Type': 'application/pdf' } });
    const uploadPath = new URL(upload.url).pathname;
    expect(uploadPath.startsWith('/v1/files/direct/')).toBe(true);
    // The token is sealed: it does not show the object key, whose numbers are the database's.
    const readable = uploadPath
      .split('/')
      .pop()!
      .split('.')
      .map((part) => Buffer.from(part, 'base64url').toString('latin1'))
      .join(' ');
    expect(readable).not.toMatch(/\/sandbox\/|"k"/);

    // No API key: the URL is the permission, and it allows only the signed type and length.
    const put = (body: string, type = 'application/pdf', path = uploadPath) => stack.http().put(path).set('Content-Type', type).send(body);
    expect((await put('%PDF-1.7 ok', 'text/plain')).status).toBe(403);
    // A JSON type is not parsed as a request body here: it is the wrong type for this URL, a 403 like any other.
    expect((await put('""', 'application/json')).status).toBe(403);
    expect((await put('%PDF')).status).toBe(403);
    expect((await put('%PDF-1.7 ok', 'application/pdf', `${uploadPath.slice(0, -2)}xx`)).status).toBe(403);
    expect((await stack.http().post(`/v1/files/${file.id}/complete`).set(t.sandbox)).status).toBe(409);
    // An HTML page declared as a PDF: stored by the URL, refused (and removed) at completion, as a multipart upload is.
    expect((await put('<html>x</p>')).status).toBe(200);
    const disguised = await stack.http().post(`/v1/files/${file.id}/complete`).set(t.sandbox);
    expect([disguised.status, disguised.body.message]).toEqual([
      409,
      'Upload does not match the file: Content is not a application/pdf file; send it with its real type, or as application/octet-stream',
    ]);
    expect(existsSync(bytesOf(t, file.id))).toBe(false);
    expect((await put('%PDF-1.7 ok')).status).toBe(200);
    const completed = await stack.http().post(`/v1/files/${file.id}/complete`).set(t.sandbox);
    expect([completed.status, completed.body.data]).toEqual([200, { ...file, status: 'ready' }]);
    expect(existsSync(bytesOf(t, file.id))).toBe(true);

    const download = (await stack.http().get(`/v1/files/${file.id}/download-url`).set(t.sandbox)).body.data;
    expect(download).toMatchObject({ method: 'GET', headers: {} });
    const fetched = await stack.http().get(new URL(download.url).pathname).buffer(true);
    expect([fetched.status, String(fetched.body)]).toEqual([200, '%PDF-1.7 ok']);
    expect(fetched.headers['content-disposition']).toBe(`attachment; filename="deck.pdf"; filename*=UTF-8''deck.pdf`);
    expect((await stack.http().put(new URL(download.url).pathname).set('Content-Type', 'application/pdf').send('x')).status).toBe(403);

    expect((await stack.http().delete(`/v1/files/${file.id}`).set(t.sandbox)).status).toBe(200);
    expect((await stack.http().get(new URL(download.url).pathname)).status).toBe(404);
  });

  it('answers 404 to validly signed URLs whose key leaves FILES_DIR: "..", an absolute path, a symlink inside pointing out', async () => {
    const root = path.resolve(config.FILES_DIR as string);
    mkdirSync(root, { recursive: true });
    const outside = path.join(path.dirname(root), `outside-${process.pid}-${Date.now()}.txt`);
    writeFileSync(outside, 'bytes outside FILES_DIR');
    // Signed with the server's own signer and secret: only the key is hostile.
    const signer = new ApiSignedUrls({ baseUrl: 'http://localhost', secret: config.FILE_URL_SECRET });
    const get = async (key: string) => {
      const { url } = await signer.downloadUrl(key, { filename: 'x.txt', contentType: 'text/plain' }, 60);
      return stack.http().get(new URL(url).pathname).buffer(true);
    };
    const t = await newTenant(stack.db);
    // A real file's bytes replaced by a symlink: its URL passes every check but the storage's own.
    const file = (await upload(t, 'mine')).body.data;
    const linked = objectKey({ tenantId: t.tenant.id, environment: 'sandbox' }, decodeId('file', file.id) as string);
    rmSync(localPathOf(linked));
    symlinkSync(outside, localPathOf(linked));
    for (const key of [`../${path.basename(outside)}`, `${t.tenant.id}/sandbox/../../../${path.basename(outside)}`, outside, linked]) {
      const res = await get(key);
      expect([key, res.status, res.body.message]).toEqual([key, 404, 'File not found']);
    }

    const written = path.join(path.dirname(root), `written-${process.pid}-${Date.now()}.txt`);
    const { url } = await signer.uploadUrl(`../${path.basename(written)}`, { contentType: 'text/plain', size: 5 }, 60);
    const put = await stack.http().put(new URL(url).pathname).set('Content-Type', 'text/plain').send('hello');
    expect(put.status).toBe(404);
    expect(existsSync(written)).toBe(false);
  });
});

describe("a deleted file's presigned URLs", () => {
  const UPLOAD_REFUSED =
    'File not found: it was deleted, so its upload URL no longer accepts bytes; start a new upload with POST /v1/files/uploads';
  const DOWNLOAD_REFUSED = 'File not found: it was deleted, so its download URL no longer serves it';

  /** A pending direct upload of an 11-byte PDF, and the PUT of its bytes to the URL it was given. */
  async function directUpload(t: TestTenant) {
    const started = await stack
      .http()
      .post('/v1/files/uploads')
      .set(t.sandbox)
      .send({ fileName: 'deck.pdf', contentType: 'application/pdf', size: 11 })
      .expect(201);
    const { upload: url, ...file } = started.body.data;
    const put = () => stack.http().put(new URL(url.url).pathname).set('Content-Type', 'application/pdf').send('%PDF-1.7 ok');
    return { file, put };
  }

  const refusal = (res: { status: number; body: { success?: boolean; status?: number; message?: string } }) => [
    res.status,
    res.body.success,
    res.body.status,
    res.body.message,
  ];

  it('refuses the upload URL of a file deleted while pending with a 404 saying to start a new upload, and stores nothing', async () => {
    const t = await newTenant(stack.db);
    const { file, put } = await directUpload(t);
    await stack.http().delete(`/v1/files/${file.id}`).set(t.sandbox).expect(200);
    expect(refusal(await put())).toEqual([404, false, 404, UPLOAD_REFUSED]);
    expect(existsSync(bytesOf(t, file.id))).toBe(false);
  });

  it('refuses both URLs of a completed file once it is deleted, even where its bytes were left on disk', async () => {
    const t = await newTenant(stack.db);
    const { file, put } = await directUpload(t);
    await put().expect(200);
    await stack.http().post(`/v1/files/${file.id}/complete`).set(t.sandbox).expect(200);
    const download = (await stack.http().get(`/v1/files/${file.id}/download-url`).set(t.sandbox).expect(200)).body.data;
    await stack.http().delete(`/v1/files/${file.id}`).set(t.sandbox).expect(200);
    // As if removing the bytes after the delete's commit had failed (the sweep retries it), or not yet run.
    writeFileSync(bytesOf(t, file.id), '%PDF-1.7 ok');
    expect(refusal(await stack.http().get(new URL(download.url).pathname))).toEqual([404, false, 404, DOWNLOAD_REFUSED]);
    rmSync(bytesOf(t, file.id));
    expect(refusal(await put())).toEqual([404, false, 404, UPLOAD_REFUSED]);
    expect(existsSync(bytesOf(t, file.id))).toBe(false);
  });

  it('an upload whose file a DELETE took first waits for it, then answers 404 and stores nothing', async () => {
    const t = await newTenant(stack.db);
    const { file, put } = await directUpload(t);
    const id = decodeId('file', file.id) as string;
    // As DELETE /v1/files/:id does it: the row locked FOR UPDATE, then deleted; committed once the upload waits.
    const deleting = {
      statements: async (tx: QueryRunner) => {
        await tx.query('SELECT id FROM files WHERE id = $1 FOR UPDATE', [id]);
        await tx.query('DELETE FROM files WHERE id = $1', [id]);
      },
    };
    const { second: res } = await interleave(stack.db, deleting, { request: put, waitsIn: /FOR KEY SHARE/ });
    expect(refusal(res)).toEqual([404, false, 404, UPLOAD_REFUSED]);
    expect(existsSync(bytesOf(t, file.id))).toBe(false);
  });
});
