import type { DataSource } from 'typeorm';
import { StatusDefinition } from '../../db/entities';
import { type TenantScope } from '../../db/scoped-repository';
import { validationFailed } from '../../lib/errors';
import { ensureSeeded } from '../status-definitions';
import { type ScopedData } from '../../db/scoped-data';
import type { ScopedSqlBuilder } from '../../db/scoped-sql';

/**
 * Lead statuses are the tenant's lead status definitions (seeded new/contacted/qualified/
 * unqualified): a given code must be one of them, and no code means the default one.
 */
export async function resolveLeadStatus(data: ScopedData, code: string | undefined): Promise<string> {
  // A prepared statement of two shapes: every batch create and import chunk asks this.
  const find = async () =>
    (
      await data.sql<{ code: string }>(
        (q) =>
          `SELECT s.code FROM ${q.from(StatusDefinition, 's')}
            WHERE s.entity_type = 'lead' AND ${code ? `s.code = ${q.value(code)}::varchar` : 's.is_default'} LIMIT 1`,
      )
    )[0]?.code;
  // Seeding is checked only when the lookup misses: a tenant's first lead, or an unknown code.
  let found = await find();
  if (!found) {
    await ensureSeeded(data, 'lead');
    found = await find();
  }
  if (!found) {
    throw validationFailed([
      { field: 'status', message: "Must be one of the tenant's lead statuses (GET /v1/config/statuses?entityType=lead)" },
    ]);
  }
  return found;
}

/** Whether `code` is one of the scope's lead statuses (a definition may have been deleted since it was named). */
export async function isLeadStatus(data: ScopedData, code: string): Promise<boolean> {
  return Boolean(await data.repo(StatusDefinition).findOne({ entityType: 'lead', code }));
}

/**
 * `EXISTS` of the scope's lead status `code` (and, with `mustBeDefault`, that it is the default),
 * for a statement that writes leads only when a status it did not look up first still holds.
 * `scope`: the statement's scope parameters, when it has them already (scopeValues).
 */
export function leadStatusExistsSql(
  q: ScopedSqlBuilder,
  code: string,
  mustBeDefault: boolean,
  [tenant, environment]: [string, string] = q.scopeValues(),
): string {
  return `EXISTS (SELECT 1 FROM ${q.table(StatusDefinition)} s WHERE s.tenant_id = ${tenant} AND s.environment = ${environment}
    AND s.entity_type = 'lead' AND s.code = ${q.value(code)}::varchar${mustBeDefault ? ' AND s.is_default' : ''})`;
}

const defaults = new WeakMap<DataSource, Map<string, string>>();
const scopeKey = (scope: TenantScope) => `${scope.tenantId}/${scope.environment}`;

/**
 * The scope's default lead status as this process last saw it. Only a hint: the statement that
 * uses it checks it is still the default and the caller resolves it again when not.
 */
export function defaultLeadStatusHint(db: DataSource, scope: TenantScope): string | undefined {
  return defaults.get(db)?.get(scopeKey(scope));
}

export function rememberDefaultLeadStatus(db: DataSource, scope: TenantScope, code: string): void {
  let byScope = defaults.get(db);
  if (!byScope) defaults.set(db, (byScope = new Map()));
  // Bounded: a process serving very many tenants re-resolves instead of growing without end.
  if (byScope.size >= 10_000) byScope.clear();
  byScope.set(scopeKey(scope), code);
}
