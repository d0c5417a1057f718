import type { EntityManager } from 'typeorm';
import type { Lead, Partner } from '../db/entities';
import { SearchDocument } from '../db/entities';
import type { SearchType } from '../db/entities/search-document';
import { scoped, type TenantScope } from '../db/scoped-repository';
import { encodeId } from '../lib/ids';
import type { DomainContext } from './context';

/** Fields that name a record rank above the rest of its text (tsvector weight A vs B). */
const TITLE_KEYS = ['name', 'title', 'firstName', 'lastName', 'company', 'email'];

function leaves(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [];
}

/** Emails also count as their parts, so "example" finds ada@example.com. */
const withEmailParts = (text: string) => text.replace(/([^\s@]+)@([^\s@]+)/g, '$1@$2 $1 $2');

/** Inserts or replaces the (type, id) document; the trigger recomputes its tsvector. */
export async function indexDocument(
  manager: EntityManager,
  scope: TenantScope,
  doc: { type: SearchType; id: string; data: Record<string, unknown> },
): Promise<SearchDocument> {
  const docs = scoped(manager, SearchDocument, scope);
  const title = withEmailParts(TITLE_KEYS.flatMap((k) => leaves(doc.data[k])).join(' '));
  const body = withEmailParts(leaves(doc.data).join(' '));
  const existing = await docs.findOne({ docType: doc.type, docId: doc.id });
  if (!existing) return docs.insert({ docType: doc.type, docId: doc.id, data: doc.data, title, body, indexedAt: new Date() });
  Object.assign(existing, { data: doc.data, title, body, indexedAt: new Date() });
  return docs.save(existing);
}

export async function removeFromIndex(manager: EntityManager, scope: TenantScope, type: SearchType, id: string): Promise<void> {
  const doc = await scoped(manager, SearchDocument, scope).findOne({ docType: type, docId: id });
  if (doc) await scoped(manager, SearchDocument, scope).deleteById(doc.id);
}

export const indexLead = (manager: EntityManager, scope: TenantScope, l: Lead) =>
  indexDocument(manager, scope, {
    type: 'lead',
    id: encodeId('lead', l.id),
    data: { email: l.email, firstName: l.firstName, lastName: l.lastName, phone: l.phone, status: l.status, source: l.source },
  });

export const indexPartner = (manager: EntityManager, scope: TenantScope, p: Partner) =>
  indexDocument(manager, scope, {
    type: 'partner',
    id: encodeId('partner', p.id),
    data: { email: p.email, firstName: p.firstName, lastName: p.lastName, company: p.company, tier: p.tier, status: p.status },
  });

/** Words of the query as prefix terms ANDed together; only letters and digits reach to_tsquery. */
function toPrefixQuery(q: string): string | null {
  const terms = q.toLowerCase().match(/[\p{L}\p{N}]+/gu);
  return terms ? terms.map((t) => `${t}:*`).join(' & ') : null;
}

/** Ranked by ts_rank; without a query every document matches with rank 0, newest first. */
export async function searchDocuments(ctx: DomainContext, f: { q?: string; type?: SearchType; page: number; limit: number }) {
  const tsq = f.q === undefined ? null : toPrefixQuery(f.q);
  if (f.q !== undefined && !tsq) return { rows: [] as { doc: SearchDocument; rank: number }[], total: 0 };
  const qb = scoped(ctx.db.manager, SearchDocument, ctx.scope).query('d');
  if (tsq) qb.andWhere("d.tsv @@ to_tsquery('simple', :tsq)", { tsq });
  if (f.type) qb.andWhere('d.doc_type = :type', { type: f.type });
  const total = await qb.getCount();
  qb.addSelect(tsq ? "ts_rank(d.tsv, to_tsquery('simple', :tsq))" : '0', 'rank')
    .orderBy('rank', 'DESC')
    .addOrderBy('d.indexed_at', 'DESC')
    .addOrderBy('d.id', 'DESC')
    .offset((f.page - 1) * f.limit)
    .limit(f.limit);
  const { entities, raw } = await qb.getRawAndEntities<{ rank: number }>();
  return { rows: entities.map((doc, i) => ({ doc, rank: Number(raw[i].rank) })), total };
}
