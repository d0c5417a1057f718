import type { EntityManager, EntityMetadata } from 'typeorm';
import { KeyedGroupCommit, togetherOrEachAlone, unwrap, type Settled } from '../lib/group-commit';
import { perEntity, queryRows, selectList, tableOf } from './sql';

type Row = Record<string, unknown>;

interface ByIdRead {
  manager: EntityManager;
  meta: EntityMetadata;
  partitioned: boolean;
  /** The scope's values, tenant (and environment), as the statements take them after the ID(s). */
  scope: string[];
  id: string;
  single: string;
}

/** Reads of one entity and scope share a statement; a group takes at most this many. */
const MAX_GROUP = 100;

const groups = new KeyedGroupCommit<ByIdRead, Settled<Row | undefined>>((reads) => togetherOrEachAlone(reads, readTogether), MAX_GROUP);

/**
 * A row by ID outside a transaction, read together with the reads of the same entity and scope
 * that arrive while one is in flight: under load the reads by ID (every `GET /v1/<resource>/:id`)
 * share a statement, as concurrent lead creates do (lib/group-commit.ts), instead of paying a
 * statement each in the API and in PostgreSQL. An idle API reads each at once, with the one-ID
 * statement; a read joins a group after its caller asked, so it sees every write committed
 * before that. If a group's statement fails, each read is made alone.
 */
export async function readById(read: ByIdRead, beforeWait?: () => void): Promise<Row | undefined> {
  const key = `${read.meta.tableName}/${read.scope.join('/')}`;
  beforeWait?.();
  return unwrap(await groups.add(read.manager.connection, key, read));
}

async function readTogether(reads: ByIdRead[]): Promise<(Row | undefined)[]> {
  const [{ manager, meta, partitioned, scope, single }] = reads;
  if (reads.length === 1) return [(await queryRows(manager, single, [reads[0].id, ...scope]))[0]];
  const rows = await queryRows(manager, byIdsSql(meta, partitioned), [reads.map((r) => r.id), ...scope]);
  const byId = new Map(rows.map((row) => [String(row.id), row]));
  // Two requests for one ID get a row each: an entity's JSON values are its own to change.
  const given = new Set<string>();
  return reads.map(({ id }) => {
    const row = byId.get(id);
    if (row && given.has(id)) return structuredClone(row);
    given.add(id);
    return row;
  });
}

const byIdsStatements = perEntity<boolean, string>();

/** selectByIdSql for many IDs: `t.id = ANY($1)`, with the same scope check (`tenant_id + 0`, see there). */
const byIdsSql = (meta: EntityMetadata, partitioned: boolean): string =>
  byIdsStatements(
    meta,
    partitioned,
    () =>
      `SELECT ${selectList(meta, 't')} FROM ${tableOf(meta)} t WHERE t.id = ANY($1) AND t.tenant_id + 0 = $2${partitioned ? ' AND t.environment = $3' : ''}`,
  );
