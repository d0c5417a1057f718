import type { Lead, Partner } from '../db/entities';
import { SearchDocument } from '../db/entities';
import type { SearchType } from '../db/entities/search-document';
import type { ScopedData } from '../db/scoped-data';
import type { ScopedSqlBuilder } from '../db/scoped-sql';
import { encodeId } from '../lib/ids';
import { spellingsOf, withSpellings } from '../lib/search-spellings';
import type { DomainContext } from './context';
import { phoneKeyQuery, splitPhoneNumbers } from './phone-search';

/** Fields that name a record rank above the rest of its text (tsvector weight A vs B). */
const TITLE_KEYS = ['name', 'title', 'firstName', 'lastName', 'company', 'email'];
const TITLE_KEY_SET = new Set(TITLE_KEYS);

/** The text leaves of a JSON value, depth first, appended to `out` (an import indexes thousands per statement). */
function leaves(value: unknown, out: string[]): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) leaves(item, out);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) leaves(item, out);
  return out;
}

/** Emails also count as their parts, so "example" finds ada@example.com (most bodies have none to look for). */
const withEmailParts = (text: string) => (text.includes('@') ? text.replace(/([^\s@]+)@([^\s@]+)/g, '$1@$2 $1 $2') : text);

export interface SearchDocumentInput {
  type: SearchType;
  id: string;
  data: Record<string, unknown>;
}

/** Emails also count as their parts, and German words as their other spellings (Müller also as Mueller). */
const searchedAs = (text: string) => withSpellings(withEmailParts(text));

/**
 * The title and body a document is searched by. The body holds the rest of its text, not the
 * title's again: each word is found at its own weight, and PostgreSQL parses each word once
 * (inserting 5,000 lead documents took about 20 % less than with the title repeated in the body).
 */
export function searchText(doc: SearchDocumentInput): { title: string; body: string } {
  const title: string[] = [];
  const body: string[] = [];
  for (const key of TITLE_KEYS) leaves(doc.data[key], title);
  for (const [key, value] of Object.entries(doc.data)) if (!TITLE_KEY_SET.has(key)) leaves(value, body);
  return { title: searchedAs(title.join(' ')), body: searchedAs(body.join(' ')) };
}

/**
 * The document of a record the same statement creates: a plain insert, since none can exist yet
 * for a new ID (`ON CONFLICT DO UPDATE` made each such insert about a third dearer in psql).
 */
export function searchDocumentInsertSql(
  q: ScopedSqlBuilder,
  doc: SearchDocumentInput,
  opts: { where?: string; onConflict?: string } = {},
): string {
  const { title, body } = searchText(doc);
  return q.insert(SearchDocument, { docType: doc.type, docId: doc.id, data: doc.data, title, body, indexedAt: q.raw('now()') }, opts);
}

/** Inserts or replaces the (type, id) document in one statement; PostgreSQL recomputes its generated tsvector. */
export function searchDocumentUpsertSql(q: ScopedSqlBuilder, doc: SearchDocumentInput, opts: { where?: string } = {}): string {
  return searchDocumentInsertSql(q, doc, {
    ...opts,
    onConflict: `ON CONFLICT (tenant_id, environment, doc_type, doc_id) DO UPDATE SET
        data = EXCLUDED.data, title = EXCLUDED.title, body = EXCLUDED.body, indexed_at = EXCLUDED.indexed_at, updated_at = now()`,
  });
}

export async function indexDocument(data: ScopedData, doc: SearchDocumentInput): Promise<SearchDocument> {
  const [saved] = await data.sqlEntities(SearchDocument, (q) => `${searchDocumentUpsertSql(q, doc)} RETURNING *`);
  return saved;
}

export async function removeFromIndex(data: ScopedData, type: SearchType, id: string): Promise<void> {
  await data.repo(SearchDocument).deleteWhere({ docType: type, docId: id });
}

/** What a lead's search document is made of. */
export type SearchedLead = Pick<Lead, 'id' | 'email' | 'firstName' | 'lastName' | 'phone' | 'status' | 'source' | 'customFields'>;

/**
 * A lead's document. Its custom fields' values (not their names) are words of its body (weight B),
 * as its status and source are; its phone also gives it a phone key (search_phone_key, in the
 * vector). Migration 1796020000000 rewrote the documents stored before in this shape, 1796050000000
 * added their words' other spellings.
 */
export const leadSearchDocument = (l: SearchedLead): SearchDocumentInput => ({
  type: 'lead',
  id: encodeId('lead', l.id),
  data: {
    email: l.email,
    firstName: l.firstName,
    lastName: l.lastName,
    phone: l.phone,
    status: l.status,
    source: l.source,
    customFields: l.customFields,
  },
});

export const indexLead = (data: ScopedData, l: Lead) => indexDocument(data, leadSearchDocument(l));

/**
 * Inserts or replaces many documents in one statement (an import's chunk). They are written in
 * document order, so two such statements on overlapping documents lock them alike and cannot
 * deadlock. `keepNewer`: a document that exists is left as it is, for a writer whose documents
 * may be older than ones written meanwhile (an import's deferred index step, where every other
 * writer of a lead's document has written its newer state).
 */
export async function upsertSearchDocuments(
  data: ScopedData,
  docs: SearchDocumentInput[],
  opts: { keepNewer?: boolean } = {},
): Promise<void> {
  if (!docs.length) return;
  const sorted = docs
    .map((doc) => ({ doc, key: doc.type + doc.id }))
    .sort((a, b) => (a.key < b.key ? -1 : 1))
    .map((d) => d.doc);
  const texts = sorted.map(searchText);
  await data.sql((q) => {
    const [tenant, env] = q.scopeValues();
    return `INSERT INTO ${q.table(SearchDocument)} (tenant_id, environment, doc_type, doc_id, data, title, body, indexed_at)
      SELECT ${tenant}, ${env}, d.type, d.id, d.data, d.title, d.body, now()
        FROM unnest(${q.value(sorted.map((d) => d.type))}::varchar[], ${q.value(sorted.map((d) => d.id))}::varchar[],
          ${q.value(sorted.map((d) => JSON.stringify(d.data)))}::jsonb[], ${q.value(texts.map((t) => t.title))}::text[],
          ${q.value(texts.map((t) => t.body))}::text[]) WITH ORDINALITY AS d(type, id, data, title, body, n)
        ORDER BY d.n
      ON CONFLICT (tenant_id, environment, doc_type, doc_id) DO ${
        opts.keepNewer
          ? 'NOTHING'
          : `UPDATE SET
        data = EXCLUDED.data, title = EXCLUDED.title, body = EXCLUDED.body, indexed_at = EXCLUDED.indexed_at, updated_at = now()`
      }`;
  });
}

export const indexPartner = (data: ScopedData, p: Partner) =>
  indexDocument(data, {
    type: 'partner',
    id: encodeId('partner', p.id),
    data: { email: p.email, firstName: p.firstName, lastName: p.lastName, company: p.company, tier: p.tier, status: p.status },
  });

/**
 * The query's words as terms ANDed together, split by the same parser and configuration that
 * built the documents' vectors: the parser keeps an email, a host name or a dotted name as one
 * word ("ada@example.com", "example.com", "li.wei"), where splitting the query on punctuation
 * would look for words no document has, and `simple_unaccent` drops accents as it did for the
 * documents ("José" and "Jose" are both `jose`). Each lexeme is quoted for to_tsquery (quotes
 * doubled, backslashes escaped); its words are lexemes already, which `simple` keeps as they are.
 * Prefix terms unless `exact`.
 */
const termsQuery = (param: string, exact = false) => String.raw`(SELECT to_tsquery('simple', coalesce(string_agg(
    '''' || replace(replace(t.lexeme, E'\\', E'\\\\'), '''', '''''') || '''${exact ? '' : ':*'}', ' & '), ''))
  FROM unnest(to_tsvector('simple_unaccent', :${param})) t)`;

/**
 * The tsquery parts of the query's words, to be ANDed. A word with other spellings
 * (lib/search-spellings.ts, which gave them to the documents too) matches as any of them:
 * `Müller` as `muller:*` or `mueller:*`, `Mueller` as `mueller:*` or the whole word `muller` (a
 * document's Muller). A reduced spelling is no prefix: `Joe` as `jo:*` would find every John.
 */
function wordsQuery(words: string, params: Record<string, string>): string[] {
  const param = (name: string, value: string) => ((params[name] = value), name);
  const plain: string[] = [];
  const spelled = words.split(/\s+/).flatMap((word, i) => {
    const { transliterated, reduced } = spellingsOf(word);
    if (!transliterated && !reduced) {
      plain.push(word);
      return [];
    }
    const alternatives = [termsQuery(param(`word${i}`, word))];
    if (transliterated) alternatives.push(termsQuery(param(`transliterated${i}`, transliterated)));
    if (reduced) alternatives.push(termsQuery(param(`reduced${i}`, reduced), true));
    return [`(${alternatives.join(' || ')})`];
  });
  // Words are made of letters and digits: punctuation alone between numbers is no word to look for.
  const rest = plain.join(' ');
  return /[\p{L}\p{N}]/u.test(rest) ? [termsQuery(param('q', rest)), ...spelled] : spelled;
}

/**
 * The tsquery of `q` and its parameters: its words (wordsQuery), ANDed; a phone number written
 * in it (domain/phone-search.ts) matches as its words or as a phone (its phone keys), so
 * `Ada 020 7946 0958` finds Ada whose phone is `+44 20 7946 0958`, which neither the words nor
 * the number alone would single out.
 */
function documentQuery(q: string): { sql: string; params: Record<string, string> } {
  const { numbers, words } = splitPhoneNumbers(q);
  const params: Record<string, string> = {};
  const parts = wordsQuery(words.join(' '), params);
  numbers.forEach((n, i) => {
    parts.push(`(${termsQuery(`number${i}`)} || CAST(:phone${i} AS tsquery))`);
    params[`number${i}`] = n.text;
    params[`phone${i}`] = phoneKeyQuery(n.digits);
  });
  return { sql: parts.length === 1 ? parts[0] : `(${parts.join(' && ')})`, params };
}

/**
 * Ranked by ts_rank; without a query every document matches with rank 0, newest first. A phone
 * number in the query also matches documents whose phone matches its digits (documentQuery).
 */
export async function searchDocuments(ctx: DomainContext, f: { q?: string; type?: SearchType[]; page: number; limit: number }) {
  // Words are made of letters and digits: a query of punctuation alone matches nothing.
  if (f.q !== undefined && !/[\p{L}\p{N}]/u.test(f.q)) return { rows: [] as { doc: SearchDocument; rank: number }[], total: 0 };
  const query = f.q === undefined ? null : documentQuery(f.q);
  const qb = ctx.data.repo(SearchDocument).select('d');
  if (query) qb.andWhere(`d.tsv @@ ${query.sql}`, query.params);
  if (f.type) qb.andWhere('d.doc_type IN (:...type)', { type: f.type });
  const total = await qb.boundedCount(f.page, f.limit);
  qb.addSelect(query ? `ts_rank(d.tsv, ${query.sql})` : '0', 'rank')
    .orderBy('rank', 'DESC')
    .addOrderBy('d.indexed_at', 'DESC')
    .addOrderBy('d.id', 'DESC')
    .offset((f.page - 1) * f.limit)
    .limit(f.limit);
  const { entities, raw } = await qb.getRawAndEntities<{ rank: number }>();
  return { rows: entities.map((doc, i) => ({ doc, rank: Number(raw[i].rank) })), total };
}
