import { Lead, Partner } from '../db/entities';
import { decodeId } from '../lib/ids';
import type { SearchIndexRequest } from '../contracts/search';
import type { DomainContext } from './context';
import { assertExists } from './scoped-lookups';
import { indexDocument } from './search-index';
import { unitOfWork } from './unit-of-work';

/**
 * POST /v1/search/index. Leads and partners must exist in the caller's scope; opportunity IDs are
 * only checked for their form (opportunities are stored on another branch). A later change of a
 * lead or partner re-indexes it from its own fields, replacing what was posted here.
 */
export function indexExternalDocument(ctx: DomainContext, req: SearchIndexRequest) {
  return unitOfWork(ctx, async (tx) => {
    const key = decodeId(req.type, req.id) as string;
    if (req.type === 'lead') await assertExists(tx, Lead, key, 'id', 'Lead');
    if (req.type === 'partner') await assertExists(tx, Partner, key, 'id', 'Partner');
    return indexDocument(tx, req);
  });
}
