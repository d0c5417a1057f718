import { Column, Entity, Index } from 'typeorm';
import { TenantScopedColumns } from './tenant-owned';

export const SEARCH_TYPES = ['lead', 'opportunity', 'partner'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

/**
 * One searchable document per (type, id). `tsv` is a generated column of `title` (weight A), `body`
 * (weight B) and the phone key of `data.phone`, so every writer gets the same vector; the GIN index
 * on it is created by the migration (TypeORM cannot declare GIN indexes, hence synchronize: false).
 * `simple_unaccent` and `search_phone_key` are defined by migration
 * 1796020000000-SearchAccentsPhonesAndCustomFields: words are stored without their accents, and a
 * phone as one `#`-lexeme of its digits reversed, which only a phone query looks for
 * (domain/phone-search.ts).
 */
@Entity({ name: 'search_documents' })
// The unique index starts with the scope, so the pair needs none of its own (TenantScopedColumns).
@Index('uq_search_documents_doc', ['tenantId', 'environment', 'docType', 'docId'], { unique: true })
@Index('ix_search_documents_tsv', { synchronize: false })
export class SearchDocument extends TenantScopedColumns {
  @Column({ name: 'doc_type', type: 'varchar', length: 20 })
  docType: SearchType;

  /** The public (encoded) ID: documents may describe records this service does not store. */
  @Column({ name: 'doc_id', type: 'varchar', length: 40 })
  docId: string;

  @Column({ type: 'jsonb' })
  data: Record<string, unknown>;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text' })
  body: string;

  @Column({
    type: 'tsvector',
    nullable: true,
    select: false,
    insert: false,
    update: false,
    generatedType: 'STORED',
    asExpression: `setweight(to_tsvector('simple_unaccent'::regconfig, title), 'A') || setweight(to_tsvector('simple_unaccent'::regconfig, body), 'B') || search_phone_key(data ->> 'phone')`,
  })
  tsv: string | null;

  @Column({ name: 'indexed_at', type: 'timestamptz' })
  indexedAt: Date;
}
