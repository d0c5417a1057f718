import { Brackets, type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';
import { boundedCount, countedPage } from './counted-page';

type Order = 'ASC' | 'DESC';
type Nulls = 'NULLS FIRST' | 'NULLS LAST';
type Lock = 'pessimistic_write' | 'pessimistic_read';

/**
 * A select over one tenant's rows. Callers add conditions, ordering and locks; the builder itself
 * never leaves this class, and the scope is added when the statement is built, last and ANDed
 * with the callers' conditions (kept in brackets). So `where` composes with the scope instead of
 * replacing it, and no condition a caller writes (an OR included) can widen the result past it.
 */
export class ScopedQuery<T extends ObjectLiteral> {
  private readonly conditions: [string, ObjectLiteral | undefined][] = [];

  constructor(
    private readonly base: SelectQueryBuilder<T>,
    private readonly applyScope: (qb: SelectQueryBuilder<T>) => SelectQueryBuilder<T>,
  ) {}

  /** Adds a condition; it never replaces the scope or the conditions added before (same as andWhere). */
  where(condition: string, parameters?: ObjectLiteral): this {
    this.conditions.push([condition, parameters]);
    return this;
  }

  andWhere(condition: string, parameters?: ObjectLiteral): this {
    return this.where(condition, parameters);
  }

  /** Sets values the conditions name, so the same statement runs again with others (the next keyset page). */
  setParameters(parameters: ObjectLiteral): this {
    this.base.setParameters(parameters);
    return this;
  }

  orderBy(sort: string, order: Order = 'ASC', nulls?: Nulls): this {
    this.base.orderBy(sort, order, nulls);
    return this;
  }

  addOrderBy(sort: string, order: Order = 'ASC', nulls?: Nulls): this {
    this.base.addOrderBy(sort, order, nulls);
    return this;
  }

  /** Replaces the selected columns (aggregates with groupBy). */
  select(selection: string, alias?: string): this {
    this.base.select(selection, alias);
    return this;
  }

  addSelect(selection: string, alias?: string): this {
    this.base.addSelect(selection, alias);
    return this;
  }

  groupBy(expression: string): this {
    this.base.groupBy(expression);
    return this;
  }

  setLock(lock: Lock): this {
    this.base.setLock(lock);
    return this;
  }

  offset(n: number): this {
    this.base.offset(n);
    return this;
  }

  limit(n: number): this {
    this.base.limit(n);
    return this;
  }

  getOne(): Promise<T | null> {
    return this.built().getOne();
  }

  getMany(): Promise<T[]> {
    return this.built().getMany();
  }

  getRawMany<R>(): Promise<R[]> {
    return this.built().getRawMany<R>();
  }

  getRawAndEntities<R>(): Promise<{ entities: T[]; raw: R[] }> {
    return this.built().getRawAndEntities<R>();
  }

  /** One page and its bounded total (see countedPage). */
  page(page: number, limit: number): Promise<[T[], number]> {
    return countedPage(this.built(), page, limit);
  }

  /** The matches, counted up to the list cap (see boundedCount). */
  boundedCount(page: number, limit: number): Promise<number> {
    return boundedCount(this.built(), page, limit);
  }

  private built(): SelectQueryBuilder<T> {
    const qb = this.base.clone();
    if (this.conditions.length)
      qb.where(
        new Brackets((w) => {
          for (const [condition, parameters] of this.conditions) w.andWhere(`(${condition})`, parameters);
        }),
      );
    return this.applyScope(qb);
  }
}
