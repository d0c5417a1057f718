import { z } from 'zod';
import { indexExternalDocument } from '../../domain/search';
import { searchDocuments } from '../../domain/search-index';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { SearchHit, SearchIndexRequest, SearchIndexResult, SearchQuery } from '../schemas/search';

export function searchRoutes(deps: AppDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/search/index',
      summary: 'Index (insert or replace) one search document',
      tag: 'Search',
      auth: 'tenant',
      scope: 'search:write',
      body: SearchIndexRequest,
      response: SearchIndexResult,
      status: 200,
      handler: async ({ body, auth }) => {
        const doc = await indexExternalDocument(domainContext(deps, auth), body);
        return { data: { type: doc.docType, id: doc.docId, indexedAt: doc.indexedAt.toISOString() }, message: 'Document indexed' };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/search',
      summary: 'Full-text search over indexed leads, opportunities and partners (prefix match, ranked)',
      tag: 'Search',
      auth: 'tenant',
      scope: 'search:read',
      query: SearchQuery,
      response: z.array(SearchHit),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await searchDocuments(domainContext(deps, auth), query);
        return {
          data: rows.map(({ doc, rank }) => ({
            type: doc.docType,
            id: doc.docId,
            data: doc.data,
            indexedAt: doc.indexedAt.toISOString(),
            rank,
          })),
          pagination: paginate(query.page, query.limit, total),
          message: 'Search results',
        };
      },
    }),
  ];
}
