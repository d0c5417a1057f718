import { z } from 'zod';
import { SEARCH_TYPES } from '../db/entities/search-document';
import { decodeId } from '../lib/ids';
import { PaginationQuery, typedIdPair } from './common';
import { anyOf } from './list-filters';

export const SearchIndexRequest = z
  .object({
    type: z.enum(SEARCH_TYPES),
    id: z.string().meta({ description: 'ID of the record the document describes (of the given type)' }),
    data: z.record(z.string(), z.unknown()).refine((d) => JSON.stringify(d).length <= 100_000, 'At most 100 kB of data'),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (decodeId(v.type, v.id) === null) ctx.addIssue({ code: 'custom', path: ['id'], message: `Must be a valid ${v.type} ID` });
  })
  .meta({ id: 'SearchIndexRequest', ...typedIdPair('type', 'id', SEARCH_TYPES) });
export type SearchIndexRequest = z.output<typeof SearchIndexRequest>;

export const SearchIndexResult = z
  .object({ type: z.enum(SEARCH_TYPES), id: z.string(), indexedAt: z.string() })
  .meta({ id: 'SearchIndexResult' });

export const SearchHit = z
  .object({
    type: z.enum(SEARCH_TYPES),
    id: z.string(),
    data: z.record(z.string(), z.unknown()),
    indexedAt: z.string(),
    rank: z.number().meta({ description: 'PostgreSQL ts_rank; higher is better' }),
  })
  .meta({ id: 'SearchHit' });

export const SearchQuery = PaginationQuery.extend({
  q: z.string().trim().min(1).max(200).optional().meta({
    description:
      'Words to find (each as a prefix; accents ignored). A phone number of at least 7 digits also finds documents whose phone ends in the same digits, with or without country code. Without q, newest documents first',
  }),
  type: anyOf(SEARCH_TYPES).optional(),
});
