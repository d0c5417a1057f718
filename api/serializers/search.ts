import type { SearchDocument } from '../../db/entities';

export const serializeSearchHit = ({ doc, rank }: { doc: SearchDocument; rank: number }) => ({
  type: doc.docType,
  id: doc.docId,
  data: doc.data,
  indexedAt: doc.indexedAt.toISOString(),
  rank,
});
