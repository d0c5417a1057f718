import type { EntityType } from '../contracts/status-definition';
import { StatusDefinition } from '../db/entities';
import { type ScopedData } from '../db/scoped-data';
import { ensureSeeded } from './status-definitions';

/**
 * Records name a status definition: a lead the code of its status, an opportunity the ID (and the
 * code) of its stage. A definition can be deleted, or changed in what its records depend on (its
 * code; a stage's closed and won flags), only while no record uses it, and that check cannot see a
 * record not committed yet. So every write of a record's status or stage holds the definition it
 * names, FOR KEY SHARE, in the statement or transaction that writes the record, as a foreign key
 * check holds the row it references; the delete or change locks the definition FOR UPDATE before
 * it counts the records (domain/status-definitions.ts). The two locks conflict, so whichever comes
 * second waits for the other's commit: a delete or change that waited counts the new record (its
 * count is a later statement) and refuses; a writer that waited gets the definition as the other
 * left it (PostgreSQL re-checks a row it waited for): none when it was deleted, or when a lead
 * status's code, which the writer looked it up by, changed, and the writer answers as for an
 * unknown one; otherwise the row as committed, a stage with its new code or flags. Never a record
 * whose status or stage no definition describes.
 */

/** Whether a lookup holds the definition it finds until the transaction ends, or only reads it. */
export type DefinitionLock = 'none' | 'key share';

/** The definition a record names: by code (a lead's status), by ID (an opportunity's stage), or the default. */
export type DefinitionRef = { code: string } | { id: string } | undefined;

// A prepared statement of three shapes (six with the lock): every lead create that misses, batch and import chunk asks it.
async function findDefinition(data: ScopedData, entityType: EntityType, ref: DefinitionRef, lock: DefinitionLock) {
  const [found] = await data.sqlEntities(StatusDefinition, (q) => {
    const which =
      ref === undefined ? 's.is_default' : 'id' in ref ? `s.id = ${q.value(ref.id)}::bigint` : `s.code = ${q.value(ref.code)}::varchar`;
    return `SELECT ${q.columns(StatusDefinition, 's')} FROM ${q.from(StatusDefinition, 's')}
      WHERE s.entity_type = ${q.value(entityType)}::varchar AND ${which} LIMIT 1${lock === 'key share' ? ' FOR KEY SHARE' : ''}`;
  });
  return found as StatusDefinition | undefined;
}

/**
 * The scope's definition of `entityType` that `ref` names, undefined when there is none. With
 * `key share`, held until `data`'s transaction ends: for a transaction that writes the record after.
 * Seeding is checked only when the lookup misses: a scope's first record, or an unknown reference.
 */
export async function findOrSeedDefinition(
  data: ScopedData,
  entityType: EntityType,
  ref: DefinitionRef,
  lock: DefinitionLock,
): Promise<StatusDefinition | undefined> {
  const found = await findDefinition(data, entityType, ref, lock);
  if (found) return found;
  await ensureSeeded(data, entityType);
  return findDefinition(data, entityType, ref, lock);
}
