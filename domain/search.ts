import { Lead, Opportunity, Partner } from '../db/entities';
import { decodeId } from '../lib/ids';
import type { SearchIndexRequest } from '../contracts/search';
import type { DomainContext } from './context';
import { assertExists } from './scoped-lookups';
import { indexDocument } from './search-index';
import { unitOfWork } from './unit-of-work';

const INDEXED = { lead: [Lead, 'Lead'], partner: [Partner, 'Partner'], opportunity: [Opportunity, 'Opportunity'] } as const;

/**
 * POST /v1/search/index. The record must exist in the caller's scope. A later change of a lead or
 * partner re-indexes it from its own fields, replacing what was posted here.
 */
export function indexExternalDocument(ctx: DomainContext, req: SearchIndexRequest) {
  return unitOfWork(ctx, async (tx) => {
    const [entity, label] = INDEXED[req.type];
    await assertExists(tx, entity, decodeId(req.type, req.id) as string, 'id', label);
    return indexDocument(tx, req);
  });
}
