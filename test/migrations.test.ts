import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createDataSource, runMigrationsExclusively } from '../db/data-source';
import { migrations } from '../db/migrations';
import { createDomainContext } from '../domain/context';
import { LEAD_FEED } from '../domain/change-feeds/feeds';
import { readChanges } from '../domain/change-feeds/read';
import { listLeads } from '../domain/leads/leads';
import { leadSearchDocument, searchDocuments, searchText, type SearchedLead } from '../domain/search-index';
import { FEED_START, type ChangePosition } from '../lib/change-cursor';
import { encodeId } from '../lib/ids';
import { withSpellings } from '../lib/search-spellings';
import { waitUntil } from './support/wait-until';

/** A brand-new database per run of this test: migrations must work from nothing. */
async function emptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DB_ADMIN_URL as string;
  const name = `lead_migrations_${process.pid}_${Date.now()}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * A new database migrated to just before the migration `name` (`before`, initialized), and `all`,
 * a data source of the migrations through `name` (or, with `through: 'every'`, all of them) for
 * the test to run; both closed and the database dropped after `use`.
 */
async function acrossMigration(
  name: string,
  use: (dbs: { before: DataSource; all: DataSource }) => Promise<void>,
  through: 'it' | 'every' = 'it',
): Promise<void> {
  const empty = await emptyDatabase();
  const options = createDataSource({ url: empty.url }).options;
  const upTo = migrations.findIndex((m) => m.name === name);
  const before = new DataSource({ ...options, migrations: migrations.slice(0, upTo) });
  const all = new DataSource({ ...options, migrations: through === 'it' ? migrations.slice(0, upTo + 1) : migrations });
  try {
    await before.initialize();
    await before.runMigrations();
    await use({ before, all });
  } finally {
    if (before.isInitialized) await before.destroy();
    if (all.isInitialized) await all.destroy();
    await empty.drop();
  }
}

/** A domain context of tenant 1's live scope on `db`, without Temporal. */
const tenantOneContext = (db: DataSource) =>
  createDomainContext({ db, scope: { tenantId: '1', environment: 'live' }, actorUserId: '1', workflows: undefined as never });

/** The IDs of the documents of tenant 1's live scope that search finds for `q` on `db`. */
const searchOf = (db: DataSource) => {
  const ctx = tenantOneContext(db);
  return async (q: string) => (await searchDocuments(ctx, { q, page: 1, limit: 10 })).rows.map((r) => r.doc.docId);
};

describe('migrations', () => {
  it('apply from an empty database, leave no drift from the entities, and revert cleanly', async () => {
    const empty = await emptyDatabase();
    const ds = createDataSource({ url: empty.url });
    try {
      await ds.initialize();
      const applied = await ds.runMigrations();
      expect(applied).toHaveLength(migrations.length);

      const drift = await ds.driver.createSchemaBuilder().log();
      expect(drift.upQueries.map((q) => q.query)).toEqual([]);

      for (let i = 0; i < migrations.length; i++) await ds.undoLastMigration();
      const tables = await ds.query(
        // TypeORM's own bookkeeping: the migrations run, and the expressions of generated columns.
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name NOT IN ('migrations', 'typeorm_metadata')`,
      );
      expect(tables).toEqual([]);
    } finally {
      if (ds.isInitialized) await ds.destroy();
      await empty.drop();
    }
  });

  it('infer the format of stored templates, messages and sequence email nodes once, and suppress the addresses of leads already opted out', async () => {
    await acrossMigration(
      'AddEmailFormats1795352000000',
      async ({ before, all }) => {
        const email = (body: string) => ({
          nodeId: body.length.toString(),
          type: 'email',
          position: { x: 0, y: 0 },
          data: { subjectLine: 's', body },
        });
        const nodes = [{ nodeId: 't', type: 'trigger', data: {} }, email('<p>Hi {{firstName}}</p>'), email('Hi {{firstName}}, a < b')];
        await before.query(
          `INSERT INTO email_templates (tenant_id, environment, name, subject, body) VALUES (1, 'live', 'h', 's', '<b>x</b>'), (1, 'live', 't', 's', 'a < b and c > d <a<a')`,
        );
        await before.query(
          `INSERT INTO workflow_definitions (tenant_id, environment, name, nodes, edges) VALUES (1, 'live', 'w', $1, '[]')`,
          [JSON.stringify(nodes)],
        );
        await before.query(
          `INSERT INTO leads (tenant_id, environment, email, email_normalized, first_name, last_name, unsubscribed_at, bounced_at)
         VALUES (1, 'live', 'A@x.com', 'a@x.com', 'A', 'A', now(), NULL), (1, 'live', 'a@x.com', 'a@x.com', 'A', 'A', NULL, now()),
                (1, 'live', 'b@x.com', 'b@x.com', 'B', 'B', now(), NULL), (1, 'live', 'c@x.com', 'c@x.com', 'C', 'C', NULL, NULL)`,
        );
        await before.destroy();

        await all.initialize();
        await all.runMigrations();
        expect(await all.query(`SELECT name, format FROM email_templates ORDER BY name`)).toEqual([
          { name: 'h', format: 'html' },
          { name: 't', format: 'text' },
        ]);
        const [{ nodes: migrated }] = await all.query(`SELECT nodes FROM workflow_definitions`);
        expect(migrated.map((n: { data: { format?: string } }) => n.data.format)).toEqual([undefined, 'html', 'text']);
        expect(await all.query(`SELECT address, reason FROM email_suppressions ORDER BY address`)).toEqual([
          { address: 'a@x.com', reason: 'bounced' },
          { address: 'b@x.com', reason: 'unsubscribed' },
        ]);
      },
      'every',
    );
  });

  it('give leads whose phone has a (0) or a leading 00 the new phone key, keep claims with their holders, and check them again', async () => {
    // `all` ends with this migration, so that undoing the last one undoes it whatever comes later.
    const phones: [string, string, string][] = [
      // [name, phone, phone_normalized as the old rule (digits only) stored it]
      ['plain', '+44 20 7946 0958', '442079460958'],
      ['prefixed', '0044 (0)20 7946 0958', '004402079460958'],
      ['trunk', '+44 (0)20 7946 0959', '4402079460959'],
      ['irish1', '00 353 1 234 5678', '0035312345678'],
      ['irish2', '+353 (0)1 234 5678', '353012345678'],
      ['short', '00 1234', '001234'],
      ['other', '+1 555 010 2030', '15550102030'],
    ];
    await acrossMigration('RenormalizeInternationalPhones1795990000000', async ({ before, all }) => {
      const ids: Record<string, string> = {};
      for (const [name, phone, normalized] of phones) {
        const [row] = await before.query(
          `INSERT INTO leads (tenant_id, environment, email, email_normalized, first_name, last_name, phone, phone_normalized, duplicates_checked_at)
           VALUES (1, 'live', $1, $1, 'A', 'A', $2, $3, now()) RETURNING id::text`,
          [`${name}@x.com`, phone, normalized],
        );
        ids[name] = row.id;
        // As a create wrote them: the lead's cluster rows, and the claims of keys no lead had.
        await before.query(
          `INSERT INTO lead_identities (tenant_id, environment, key, lead_id) VALUES (1, 'live', $1, $3), (1, 'live', $2, $3)`,
          [`e:${name}@x.com`, `p:${normalized}`, row.id],
        );
        await before.query(
          `INSERT INTO lead_dedupe_keys (tenant_id, environment, key, lead_id) VALUES (1, 'live', $1, $3), (1, 'live', $2, $3)`,
          [`e:${name}@x.com`, `p:${normalized}`, row.id],
        );
      }
      await before.destroy();
      const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
      const state = async () => ({
        leads: Object.fromEntries(
          (await all.query(`SELECT id::text, phone_normalized, duplicates_checked_at IS NULL AS unchecked FROM leads`)).map(
            (r: { id: string; phone_normalized: string | null; unchecked: boolean }) => [names[r.id], [r.phone_normalized, r.unchecked]],
          ),
        ),
        phoneKeys: Object.fromEntries(
          (
            await all.query(
              `SELECT lead_id::text, array_agg(key ORDER BY key) AS keys FROM lead_identities WHERE key LIKE 'p:%' GROUP BY lead_id`,
            )
          ).map((r: { lead_id: string; keys: string[] }) => [names[r.lead_id], r.keys]),
        ),
        claims: Object.fromEntries(
          (await all.query(`SELECT key, lead_id::text FROM lead_dedupe_keys WHERE key LIKE 'p:%'`)).map(
            (r: { key: string; lead_id: string }) => [r.key, names[r.lead_id]],
          ),
        ),
      });

      await all.initialize();
      await all.runMigrations();
      const migrated = await state();
      expect(migrated).toEqual({
        leads: {
          plain: ['442079460958', false],
          prefixed: ['442079460958', true],
          trunk: ['442079460959', true],
          irish1: ['35312345678', true],
          irish2: ['35312345678', true],
          short: [null, true],
          other: ['15550102030', false],
        },
        phoneKeys: {
          plain: ['p:442079460958'],
          prefixed: ['p:442079460958'],
          trunk: ['p:442079460959'],
          irish1: ['p:35312345678'],
          irish2: ['p:35312345678'],
          other: ['p:15550102030'],
        },
        claims: {
          'p:442079460958': 'plain', // claimed already: the claim stays, the lead joins the cluster
          'p:442079460959': 'trunk',
          'p:35312345678': 'irish1', // new to both changed leads: the older claims it
          'p:15550102030': 'other',
          // Claims are never deleted: a later lead with an old key gets the full check.
          'p:004402079460958': 'prefixed',
          'p:4402079460959': 'trunk',
          'p:0035312345678': 'irish1',
          'p:353012345678': 'irish2',
          'p:001234': 'short',
        },
      });

      // Down restores the old keys (the old rule is the stored phone's digits); claims stay.
      await all.undoLastMigration();
      const reverted = await state();
      expect(reverted.leads).toEqual(
        Object.fromEntries(phones.map(([name, , normalized]) => [name, [normalized, !['plain', 'other'].includes(name)]])),
      );
      expect(reverted.phoneKeys).toEqual(Object.fromEntries(phones.map(([name, , normalized]) => [name, [`p:${normalized}`]])));
      expect(reverted.claims).toEqual(migrated.claims);
    });
  });

  it("rewrite the lead documents stored before with their lead's custom fields, as the writers now write them, and give every document a vector without accents and with its phone key", async () => {
    await acrossMigration('SearchAccentsPhonesAndCustomFields1796020000000', async ({ before, all }) => {
      const [{ id }] = await before.query(
        `INSERT INTO leads (tenant_id, environment, email, email_normalized, first_name, last_name, phone, phone_normalized)
         VALUES (1, 'live', 'jose@example.com', 'jose@example.com', 'José', 'Müller', '+44 20 7946 0958', '442079460958') RETURNING id::text`,
      );
      await before.query(`UPDATE leads SET custom_fields = $1`, [
        { company_size: 'Enterprise', industry: 'Fintech', seats: 250, note: null },
      ]);
      const leadDoc = encodeId('lead', id);
      // The documents as the writers stored them before this migration.
      await before.query(
        `INSERT INTO search_documents (tenant_id, environment, doc_type, doc_id, data, title, body, indexed_at) VALUES
           (1, 'live', 'lead', $1, $2, 'José Müller jose@example.com jose example.com', '+44 20 7946 0958 new api', now()),
           (1, 'live', 'partner', $3, $4, 'Günther Ødegård g@engines.example g engines.example', 'gold approved', now())`,
        [
          leadDoc,
          { email: 'jose@example.com', firstName: 'José', lastName: 'Müller', phone: '+44 20 7946 0958', status: 'new', source: 'api' },
          encodeId('partner', '1'),
          { email: 'g@engines.example', firstName: 'Günther', lastName: 'Ødegård', company: null, tier: 'gold', status: 'approved' },
        ],
      );
      await before.destroy();

      await all.initialize();
      await all.runMigrations();
      const found = searchOf(all);
      expect(await found('jose muller')).toEqual([leadDoc]);
      expect(await found('020 7946 0958')).toEqual([leadDoc]);
      expect(await found('gunther odegard')).toEqual([encodeId('partner', '1')]);
      expect(await found('fintech enterprise')).toEqual([leadDoc]);
      expect(await found('250')).toEqual([leadDoc]);
      expect(await found('healthcare')).toEqual([]);
      // The document is the one the writers write for this lead now.
      const [lead] = await all.query(
        `SELECT id::text, email, first_name AS "firstName", last_name AS "lastName", phone, status, source, custom_fields AS "customFields" FROM leads`,
      );
      const written = leadSearchDocument(lead as SearchedLead);
      const stored = async () => (await all.query(`SELECT data, title, body FROM search_documents WHERE doc_type = 'lead'`))[0];
      // As the writers wrote it then: 1796050000000 appends its other spellings (Müller's Mueller).
      const { data, title, body } = await stored();
      expect({ data, title: withSpellings(title), body: withSpellings(body) }).toEqual({ data: written.data, ...searchText(written) });

      // Down: documents without custom fields, and the plain vector, again.
      await all.undoLastMigration();
      expect(await stored()).toEqual({
        data: { email: 'jose@example.com', firstName: 'José', lastName: 'Müller', phone: '+44 20 7946 0958', status: 'new', source: 'api' },
        title: 'José Müller jose@example.com jose example.com',
        body: '+44 20 7946 0958 new api',
      });
      const vectors = await all.query(
        `SELECT tsv = setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('simple', body), 'B') AS plain FROM search_documents`,
      );
      expect(vectors).toEqual([{ plain: true }, { plain: true }]);
    });
  });

  it('give the stored documents of every type the other spellings of their German words, in batches, as the writers now write them', async () => {
    await acrossMigration('SearchGermanSpellings1796050000000', async ({ before, all }) => {
      // Three documents with German words as the writers stored them before, after more documents
      // than two batches that may have spellings (an accent) but have none.
      const docs = [
        {
          type: 'lead' as const,
          data: { firstName: 'Jürgen', lastName: 'Müller', email: 'jm@example.com' },
          title: 'Jürgen Müller jm@example.com jm example.com',
          body: '',
        },
        {
          type: 'partner' as const,
          data: { firstName: 'Käthe', lastName: 'Mueller', company: 'Größe', email: 'km@example.com' },
          title: 'Käthe Mueller Größe km@example.com km example.com',
          body: '',
        },
        { type: 'opportunity' as const, data: { name: 'Muller deal', notes: 'Schröder' }, title: 'Muller deal', body: 'Schröder' },
      ].map((d, i) => ({ ...d, id: encodeId(d.type, String(i + 1)) }));
      await before.query(
        `INSERT INTO search_documents (tenant_id, environment, doc_type, doc_id, data, title, body, indexed_at)
         SELECT 1, 'live', 'lead', 'plain' || n, '{}', 'José Lovelace' || n, 'new api', now() FROM generate_series(1, 2500) n`,
      );
      for (const doc of docs) {
        await before.query(
          `INSERT INTO search_documents (tenant_id, environment, doc_type, doc_id, data, title, body, indexed_at)
           VALUES (1, 'live', $1, $2, $3, $4, $5, now())`,
          [doc.type, doc.id, doc.data, doc.title, doc.body],
        );
      }
      await before.destroy();

      await all.initialize();
      await all.runMigrations();
      const found = async (q: string) => (await searchOf(all)(q)).sort();
      const [muller, mueller, deal] = docs.map((d) => d.id);
      for (const q of ['Müller', 'Mueller', 'Muller']) expect([q, await found(q)]).toEqual([q, [muller, mueller, deal].sort()]);
      expect(await found('kaethe groesse')).toEqual([mueller]);
      expect(await found('schroeder')).toEqual([deal]);
      // Each is the document the writers write now; the others are as they were.
      const rewritten = await all.query(`SELECT doc_id, title, body FROM search_documents WHERE doc_id NOT LIKE 'plain%' ORDER BY id`);
      expect(rewritten).toEqual(docs.map((d) => ({ doc_id: d.id, ...searchText(d) })));
      const plain = await all.query(`SELECT count(*)::int AS n FROM search_documents WHERE title = 'José Lovelace' || substr(doc_id, 6)`);
      expect(plain).toEqual([{ n: 2500 }]);
    });
  });

  it('give every lead stored before its search_text, in batches, and GET /v1/leads?q= finds them by it', async () => {
    await acrossMigration('AddLeadSearchText1796100000000', async ({ before, all }) => {
      // More leads than two batches, the last two with text to find.
      const lead = `INSERT INTO leads (tenant_id, environment, email, email_normalized, first_name, last_name, phone, custom_fields)`;
      await before.query(`${lead} SELECT 1, 'live', 'l' || n || '@x.example', 'l' || n || '@x.example', 'Ada', 'Lovelace', NULL, '{}'
        FROM generate_series(1, 10500) n`);
      await before.query(`${lead} VALUES (1, 'live', 'jm@x.example', 'jm@x.example', 'Jürgen', 'Müller', '+49 30 1234567', '{"city": "Köln"}'),
        (1, 'live', 'o@x.example', 'o@x.example', 'Mary', 'O''Neil', NULL, '{"note": "says \\"hi\\"", "team": "Blue Whale"}')`);
      await before.destroy();

      await all.initialize();
      await all.runMigrations();
      const [juergen, mary] = (await all.query(`SELECT id::text FROM leads WHERE first_name <> 'Ada' ORDER BY id`)).map(
        (r: { id: string }) => r.id,
      );
      expect(await all.query(`SELECT count(*)::int AS n FROM leads WHERE search_text IS NULL`)).toEqual([{ n: 0 }]);
      expect(await all.query(`SELECT search_text FROM leads WHERE id IN ($1, $2) ORDER BY id`, [juergen, mary])).toEqual([
        { search_text: 'jurgen muller\njm@x.example\n+49 30 1234567\n["koln"]\njuergen mueller\njm@x.example\n+49 30 1234567\n["koeln"]' },
        { search_text: 'mary o\'neil\no@x.example\n\n["says \\"hi\\"", "blue whale"]' },
      ]);
      const ctx = tenantOneContext(all);
      const found = async (q: string) =>
        (await listLeads(ctx, { q, page: 1, limit: 10, sort: { field: 'createdAt', direction: 'DESC' } })).rows.map((l) => l.id);
      for (const q of ['Mueller', 'koeln', 'KÖLN', '30 123']) expect([q, await found(q)]).toEqual([q, [juergen]]);
      for (const q of ['says "hi"', "o'neil", 'E WHA']) expect([q, await found(q)]).toEqual([q, [mary]]);
      // A lead changed after the migration is written by the trigger.
      await all.query(`UPDATE leads SET last_name = 'Schröder' WHERE id = $1`, [juergen]);
      expect([await found('schroeder'), await found('mueller')]).toEqual([[juergen], []]);
    });
  });

  it('put every lead stored before in the change feed, in batches, and record the deletes after it', async () => {
    await acrossMigration(
      'AddLeadChangeFeed1796130000000',
      async ({ before, all }) => {
        // More leads than two batches, in two scopes.
        await before.query(`INSERT INTO leads (tenant_id, environment, email, email_normalized, first_name, last_name, custom_fields)
        SELECT 1, CASE WHEN n % 2 = 0 THEN 'live' ELSE 'sandbox' END, 'l' || n || '@x.example', 'l' || n || '@x.example', 'Ada', 'L', '{}'
        FROM generate_series(1, 10500) n`);
        await before.destroy();

        await all.initialize();
        await all.runMigrations();
        expect(await all.query(`SELECT count(*)::int AS n FROM leads WHERE change_xid IS NULL`)).toEqual([{ n: 0 }]);
        const ctx = tenantOneContext(all);
        /**
         * The first `count` changes the feed gives after `from`, read on as a sync does, and where they
         * end. The feed stops below the oldest writing transaction open in the cluster, which test
         * files running beside this one may hold a moment.
         */
        const walk = async (from: ChangePosition, count: number) => {
          const seen: string[] = [];
          let after = from;
          await waitUntil(async () => {
            const page = await readChanges(ctx, LEAD_FEED, after, 1000);
            seen.push(...page.changes.map((c) => (c.type === 'changed' ? c.record.id : `deleted ${c.id}`)));
            after = page.next;
            return seen.length >= count;
          }, `${count} changes`);
          return { seen, end: after };
        };
        const live = (await all.query(`SELECT id::text FROM leads WHERE environment = 'live' ORDER BY leads.id`)).map(
          (r: { id: string }) => r.id,
        );
        const initial = await walk(FEED_START, live.length);
        expect(initial.seen).toEqual(live);
        // Written by the triggers from now on: a change moves its lead after the end, a delete is recorded.
        const [first, second] = live;
        await all.query(`UPDATE leads SET score = 5, updated_at = now() WHERE id = $1`, [first]);
        await all.query(`DELETE FROM leads WHERE id = $1`, [second]);
        expect((await walk(initial.end, 2)).seen).toEqual([first, `deleted ${second}`]);
        // Through every migration: the feed's statement reads the later ones' tables too.
      },
      'every',
    );
  });

  it('are safe to run from several processes at once: every run succeeds and each migration is applied once', async () => {
    const empty = await emptyDatabase();
    const sources = [1, 2, 3].map(() => createDataSource({ url: empty.url, poolSize: 2 }));
    try {
      await Promise.all(sources.map((ds) => ds.initialize()));
      const runs = await Promise.all(sources.map((ds) => runMigrationsExclusively(ds)));
      expect(runs.map((applied) => applied.length).sort((a, b) => b - a)).toEqual([migrations.length, 0, 0]);
      const rows: { name: string; n: number }[] = await sources[0].query('SELECT name, count(*)::int AS n FROM migrations GROUP BY name');
      expect(rows).toHaveLength(migrations.length);
      expect(rows.every((r) => r.n === 1)).toBe(true);
    } finally {
      for (const ds of sources) if (ds.isInitialized) await ds.destroy();
      await empty.drop();
    }
  });
});
