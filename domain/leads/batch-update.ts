import type { LeadUpdate } from '../../contracts/lead';
import { AppError, type FieldError } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import type { DomainContext } from '../context';
import { updateLead } from './leads';

export type BatchUpdateResult =
  { index: number; status: 'updated'; id: string } | { index: number; status: 'error'; id?: string; errors: FieldError[] };

/**
 * Applies up to 100 leads' changes, each as PATCH /v1/leads/:id applies it (its own transaction,
 * `lead.updated`, status-change campaigns, search document, dedupe keys), one after another in
 * request order. A change that is refused (a lead not found, an unknown status, too many custom
 * fields) fails alone, as an invalid item of a batch create does, with the errors its PATCH would
 * have answered; any other failure fails the request, after the changes before it.
 */
export async function updateLeadBatch(
  ctx: DomainContext,
  items: { index: number; id: string; patch: LeadUpdate }[],
): Promise<BatchUpdateResult[]> {
  const results: BatchUpdateResult[] = [];
  for (const { index, id, patch } of items) {
    try {
      await updateLead(ctx, id, patch);
      results.push({ index, status: 'updated', id: encodeId('lead', id) });
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'internal' || err.code === 'service_unavailable') throw err;
      results.push({
        index,
        status: 'error',
        id: encodeId('lead', id),
        errors: err.errors?.length ? err.errors : [{ field: 'id', message: err.message }],
      });
    }
  }
  return results;
}
