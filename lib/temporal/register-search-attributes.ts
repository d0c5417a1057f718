import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { logger } from '../logger';
import { SEARCH_ATTRIBUTE_KEYS } from './search-attributes';

/**
 * Registers our custom search attributes on a namespace (idempotent). The dev server gets them on
 * its command line; this covers an external cluster. Temporal Cloud registers them via its own UI
 * or tcld, so a permission failure is only a warning.
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = SEARCH_ATTRIBUTE_KEYS.filter((k) => !(k.name in (existing.customAttributes ?? {})));
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((k) => [k.name, keyword])),
    });
    logger.info({ added: missing.map((k) => k.name) }, 'registered Temporal search attributes');
  } catch (err) {
    logger.warn(
      { err },
      'could not register Temporal search attributes; register TenantId, Environment, CampaignId, LeadId (Keyword) manually',
    );
  }
}
