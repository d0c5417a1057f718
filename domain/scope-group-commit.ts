import { KeyedGroupCommit, unwrap, type Settled } from '../lib/group-commit';
import type { DomainContext } from './context';

/**
 * Group commits of a scope's writes (tenant and environment) to its database: what lead creates and
 * engagement events share (grouped-creates.ts, grouped-events.ts). Before an item joins, its request
 * gives its fair-share slot back while no other tenant is active (`beforeGroupWait`).
 */
export class ScopeGroupCommit<T extends { ctx: DomainContext }, R> {
  private readonly groups: KeyedGroupCommit<T, Settled<R>>;

  constructor(write: (items: T[]) => Promise<Settled<R>[]>, maxBatch: number) {
    this.groups = new KeyedGroupCommit(write, maxBatch);
  }

  /** Resolves with the item's own result once its group is written; `part` splits the scope's groups further (items a statement cannot mix). */
  async add(item: T, part = ''): Promise<R> {
    const { ctx } = item;
    ctx.beforeGroupWait?.();
    return unwrap(await this.groups.add(ctx.db, `${ctx.scope.tenantId}/${ctx.scope.environment}/${part}`, item));
  }
}
