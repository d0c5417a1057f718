import { MAX_CUSTOM_FIELDS } from '../../contracts/lead';
import { validationFailed } from '../../lib/errors';
import type { Lead } from '../../db/entities';

type CustomFields = Lead['customFields'];

/**
 * A PATCH's custom fields applied as a JSON Merge Patch (RFC 7396): a key with a value sets it, a
 * key with null removes it, and keys it does not name stay. Before 2026-12-03 a null was stored as
 * the value, so a key once set could never be removed.
 */
export function patchCustomFields(current: CustomFields, patch: CustomFields): CustomFields {
  const next = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/**
 * The keys a patch really changes, with their new values (null: removed), for lead.updated's
 * `changes`. A null where the lead has no value, or a null one (stored before nulls removed keys),
 * changes nothing a reader sees.
 */
export function changedCustomFields(current: CustomFields, patch: CustomFields): CustomFields {
  const differs = (key: string, value: unknown) =>
    value === null ? current[key] !== undefined && current[key] !== null : current[key] !== value;
  return Object.fromEntries(Object.entries(patch).filter(([key, value]) => differs(key, value)));
}

/**
 * A lead holds at most MAX_CUSTOM_FIELDS custom fields in all, not only per request: without it,
 * patches of 100 new keys each grew one lead (its search text and index document with it) without
 * bound. `cause` says how this write came to more.
 */
export function assertCustomFieldCount(fields: CustomFields, field: string, cause: string): void {
  const count = Object.keys(fields).length;
  if (count <= MAX_CUSTOM_FIELDS) return;
  throw validationFailed([{ field, message: tooManyCustomFields(count, cause) }]);
}

/** Why a write that would leave a lead `count` custom fields is refused, and what to do. */
export const tooManyCustomFields = (count: number, cause: string) =>
  `${cause} would give the lead ${count} custom fields; a lead has at most ${MAX_CUSTOM_FIELDS}: remove some first (a key set to null in a PATCH of customFields removes it)`;
