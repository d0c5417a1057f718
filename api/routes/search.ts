import { z } from 'zod';
import { indexExternalDocument } from '../../domain/search';
import { searchDocuments } from '../../domain/search-index';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeSearchHit } from '../serializers/search';
import { SearchHit, SearchIndexRequest, SearchIndexResult, SearchQuery } from '../../contracts/search';

export function searchRoutes() {
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
      handler: async ({ body, ctx }) => {
        const doc = await indexExternalDocument(ctx, body);
        return { data: { type: doc.docType, id: doc.docId, indexedAt: doc.indexedAt.toISOString() }, message: 'Document indexed' };
      },
    }),
    defineListRoute({
      method: 'get',
      path: '/v1/search',
      summary: 'Full-text search over indexed leads, opportunities and partners (prefix match, ranked)',
      tag: 'Search',
      auth: 'tenant',
      scope: 'search:read',
      query: SearchQuery,
      response: z.array(SearchHit),
      message: 'Search results',
      serialize: serializeSearchHit,
      handler: ({ query, ctx }) => searchDocuments(ctx, query),
    }),
  ];
}
