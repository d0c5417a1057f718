import type { ImportFormat, ImportMapping } from '../../db/entities/lead-import';
import { LeadCreate } from '../../contracts/lead';
import type { FieldError } from '../../lib/errors';
import { MAX_RECORD_BYTES, type FileRecord } from '../../lib/records/file-record';
import type { NdjsonValue } from '../../lib/records/ndjson-records';
import { findUnstorableText, storableText } from '../../lib/unstorable-text';
import { unguardedText } from '../../lib/csv';
import { toFieldErrors } from '../../lib/zod-errors';

/** One record of an import's file: a lead to write, or why not, with what the row held. */
export type ImportRow = { line: number; raw: Record<string, unknown> } & ({ input: LeadCreate } | { reason: string });

export const describeErrors = (errors: FieldError[]) => errors.map((e) => `${e.field}: ${e.message}`).join('; ');

/** An empty cell is an absent value; CSV cells are text, so a score is read as a number first. */
function present(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

const asScore = (v: unknown) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v);

/** What a row held, as a failed row keeps it: text no jsonb can hold (U+0000, a lone surrogate) shown as U+FFFD. */
export const storableRow = (raw: Record<string, unknown>): Record<string, unknown> =>
  findUnstorableText(raw) === null ? raw : (storableText(raw) as Record<string, unknown>);

/** The body a POST /v1/leads would have had, built from a row through the mapping. */
function leadBody(mapping: ImportMapping, get: (column: string) => unknown): Record<string, unknown> {
  const pick = (column?: string) => (column === undefined ? undefined : present(get(column)));
  const customFields = Object.fromEntries(
    Object.entries(mapping.customFields ?? {}).flatMap(([key, column]) => {
      const v = pick(column);
      return v === undefined ? [] : [[key, v]];
    }),
  );
  const body: Record<string, unknown> = {
    email: pick(mapping.email),
    firstName: pick(mapping.firstName),
    lastName: pick(mapping.lastName),
    phone: pick(mapping.phone),
    status: pick(mapping.status),
    score: asScore(pick(mapping.score)),
    assignedTo: pick(mapping.assignedTo),
    referralCode: pick(mapping.referralCode),
    customFields: Object.keys(customFields).length ? customFields : undefined,
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

/**
 * Reads records of either format into rows validated by the same schema as POST /v1/leads.
 * `firstLine` is the 1-based line of the file where this read started.
 */
export function rowOf(
  format: ImportFormat,
  mapping: ImportMapping,
  header: string[] | null,
  record: FileRecord<string[] | NdjsonValue>,
  firstLine: number,
): ImportRow {
  const line = firstLine + record.line;
  if (record.tooLong) return { line, raw: {}, reason: `Row is longer than ${MAX_RECORD_BYTES} bytes` };
  let raw: Record<string, unknown>;
  if (format === 'csv') {
    const values = record.values as string[];
    raw = Object.fromEntries((header ?? []).map((name, i) => [name, values[i] ?? null]));
  } else {
    const value = record.values as NdjsonValue;
    if ('error' in value) return { line, raw: { line: value.text }, reason: value.error };
    raw = value.object;
  }
  // A CSV cell that our own files guarded against spreadsheets (`'=...`, lib/csv.ts) is read as it was.
  const body = leadBody(mapping, format === 'csv' ? (column) => unguardedText(raw[column]) : (column) => raw[column]);
  // PostgreSQL stores no U+0000 or lone surrogate: a row holding one in a mapped value fails, as a POST /v1/leads
  // body would. One anywhere in the row is replaced where the row is kept (storableRow).
  const unstorable = findUnstorableText(body);
  if (unstorable) return { line, raw, reason: `${unstorable.field}: ${unstorable.message}` };
  const parsed = LeadCreate.safeParse(body);
  return parsed.success ? { line, raw, input: parsed.data } : { line, raw, reason: describeErrors(toFieldErrors(parsed.error)) };
}

/** The columns the mapping names, for the check against a CSV header. */
export const mappedColumns = (mapping: ImportMapping): string[] => [
  ...new Set(
    [
      mapping.email,
      mapping.firstName,
      mapping.lastName,
      mapping.phone,
      mapping.status,
      mapping.score,
      mapping.assignedTo,
      mapping.referralCode,
      ...Object.values(mapping.customFields ?? {}),
    ].filter((c): c is string => c !== undefined),
  ),
];
