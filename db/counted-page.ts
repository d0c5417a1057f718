import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

/**
 * Lists count their matches only up to this many (Stripe-style lists do not count at all): an
 * exact `count(*)` over a tenant's million leads on every page would cost more than the page.
 * Above it, `total` is a lower bound and `hasNext` still tells whether another page exists.
 */
export const LIST_COUNT_CAP = 10_000;

/**
 * One page of `qb` (ordered, not yet paged) and its total, bounded: a page that is not full ends
 * the list, so the total follows without counting; otherwise the matches are counted up to the
 * cap, or a row past this page when the page lies beyond the cap (deep pages read that far anyway).
 * A total above the bound is reported as the bound, so `hasNext` stays true.
 */
export async function countedPage<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, page: number, limit: number): Promise<[T[], number]> {
  const offset = (page - 1) * limit;
  const rows = await qb.clone().skip(offset).take(limit).getMany();
  if (rows.length < limit && (rows.length > 0 || offset === 0)) return [rows, offset + rows.length];
  return [rows, await boundedCount(qb, page, limit)];
}

/** The matches of `qb`, counted up to LIST_COUNT_CAP or one row past the page, whichever is further. */
export async function boundedCount(qb: SelectQueryBuilder<ObjectLiteral>, page: number, limit: number): Promise<number> {
  const bound = Math.max(LIST_COUNT_CAP, page * limit + 1);
  const [sql, params] = qb
    .clone()
    .select('1')
    .orderBy()
    .skip(undefined)
    .take(undefined)
    .offset(undefined)
    .limit(bound)
    .getQueryAndParameters();
  const [{ n }] = (await qb.connection.query(`SELECT count(*)::int AS n FROM (${sql}) bounded`, params)) as { n: number }[];
  return Math.min(n, bound);
}
