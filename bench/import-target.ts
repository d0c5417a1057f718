/**
 * T8 (issue 16): a 1,000,000-row CSV imported through POST /v1/leads/imports vs COPY of the same
 * file into a bare table with the same columns. Both are timed end to end; rps is rows per second
 * and the latency columns hold the total time in ms.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Sample } from './sample';

/** Rows of the T8 file; BENCH_T8_ROWS makes it smaller while profiling. */
export const T8_ROWS = Number(process.env.BENCH_T8_ROWS ?? 1_000_000);
const HEADER = 'Email,First name,Last name,Company\n';

/** Distinct emails (no duplicate checks to start), streamed to disk: the file is never in memory whole. */
export async function writeLeadsCsv(file: string, prefix: string, rows: number): Promise<void> {
  function* lines() {
    yield HEADER;
    for (let i = 0; i < rows; i += 1000) {
      let block = '';
      for (let j = i; j < Math.min(rows, i + 1000); j++) block += `${prefix}-${j}@example.com,Row,Number ${j},"Company ${j % 997}, Inc"\n`;
      yield block;
    }
  }
  await pipeline(Readable.from(lines()), createWriteStream(file));
}

const timed = (rows: number, ms: number, errors = 0): Sample => ({
  rps: Math.round((rows / ms) * 1000),
  p50: Math.round(ms),
  p99: Math.round(ms),
  errors,
  serverErrors: 0,
});

/** The baseline: COPY ... FROM STDIN of the file into a fresh table without indexes. */
export async function copyIntoBareTable(dbUrl: string, file: string, table: string): Promise<Sample> {
  const client = new Client({ connectionString: dbUrl });
  await client.connect();
  try {
    await client.query(`CREATE TABLE ${table} (email varchar(320), first_name varchar(100), last_name varchar(100), company text)`);
    const started = performance.now();
    await pipeline(createReadStream(file), client.query(copyFrom(`COPY ${table} FROM STDIN (FORMAT csv, HEADER true)`)));
    const ms = performance.now() - started;
    const [{ n }] = (await client.query(`SELECT count(*)::int AS n FROM ${table}`)).rows as { n: number }[];
    return timed(n, ms, n === T8_ROWS ? 0 : 1);
  } finally {
    await client.query(`DROP TABLE IF EXISTS ${table}`);
    await client.end();
  }
}

async function call<T>(url: string, init: RequestInit & { headers: Record<string, string> }): Promise<T> {
  const res = await fetch(url, init);
  const json = (await res.json()) as { data: T };
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/**
 * The target: a direct upload of the file (as a client sends a file this size), then the import,
 * polled until it completes; the clock runs from the import's creation to its completion.
 */
export async function importThroughApi(app: string, key: Record<string, string>, file: string): Promise<Sample> {
  const size = (await stat(file)).size;
  const upload = await call<{ id: string; upload: { url: string; method: string; headers: Record<string, string> } }>(
    `${app}/v1/files/uploads`,
    {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ fileName: 'leads.csv', contentType: 'text/csv', size }),
    },
  );
  const put = await fetch(upload.upload.url, {
    method: upload.upload.method,
    headers: { ...upload.upload.headers, 'content-length': String(size) },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  if (!put.ok) throw new Error(`upload PUT: ${put.status} ${await put.text()}`);
  await call(`${app}/v1/files/${upload.id}/complete`, { method: 'POST', headers: key });
  const started = performance.now();
  const mapping = { email: 'Email', firstName: 'First name', lastName: 'Last name', customFields: { company: 'Company' } };
  const created = await call<{ id: string }>(`${app}/v1/leads/imports`, {
    method: 'POST',
    headers: key,
    body: JSON.stringify({ fileId: upload.id, format: 'csv', mapping, onExisting: 'skip' }),
  });
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const imp = await call<{ status: string; created: number; failed: number }>(`${app}/v1/leads/imports/${created.id}`, { headers: key });
    if (imp.status === 'completed' || imp.status === 'failed') {
      const ms = performance.now() - started;
      return timed(imp.created, ms, imp.status === 'failed' || imp.created !== T8_ROWS ? 1 : 0);
    }
  }
}

/**
 * After a million-row import, autovacuum would analyze and vacuum the leads' tables in the
 * background for minutes, on the cores the next layout's targets measure on: do it now, untimed.
 */
export async function settleAfterImport(dbUrl: string): Promise<void> {
  const client = new Client({ connectionString: dbUrl });
  await client.connect();
  try {
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
}
