import { Lead } from '../../db/entities';
import type { DomainContext } from '../context';
import { leadSearchDocument, upsertSearchDocuments, type SearchedLead } from '../search-index';
import { unitOfWork } from '../unit-of-work';

/** The IDs of the leads one import chunk created, first to last. */
export interface CreatedRange {
  from: string;
  to: string;
}

/**
 * Writes the search documents of the leads an import chunk created, as its own step beside the next
 * chunk (about half of a chunk's database time was this one statement). The leads are locked
 * against deletion while their documents are written: a lead deleted or merged away meanwhile gets
 * none, and one deleted later takes its document with it. A document that exists is newer (an
 * update row of a later chunk, a PATCH) and is kept. A lead of another writer in the range only
 * gets its own current document again.
 */
export async function indexImportedLeads(ctx: DomainContext, range: CreatedRange): Promise<number> {
  return unitOfWork(ctx, async (tx) => {
    // Only what a lead's document holds: the rest of the row (dates, scores, assignees) cost the
    // worker more to read and convert than the document itself.
    const leads = await tx.sql<SearchedLead>(
      (q) => `SELECT l.id::text AS id, l.email, l.first_name AS "firstName", l.last_name AS "lastName", l.phone, l.status, l.source,
          l.custom_fields AS "customFields"
        FROM ${q.table(Lead)} l
        WHERE ${q.scope('l')} AND l.id BETWEEN ${q.value(range.from)}::bigint AND ${q.value(range.to)}::bigint FOR KEY SHARE`,
    );
    await upsertSearchDocuments(tx, leads.map(leadSearchDocument), { keepNewer: true });
    return leads.length;
  });
}
