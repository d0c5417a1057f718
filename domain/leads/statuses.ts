import type { DataSource } from 'typeorm';
import { StatusDefinition } from '../../db/entities';
import { type TenantScope } from '../../db/scoped-repository';
import { type AppError, validationFailed } from '../../lib/errors';
import { type DefinitionLock, findOrSeedDefinition } from '../find-definition';
import { ensureSeeded } from '../status-definitions';
import { didYouMean } from '../../lib/near-names';
import { type ScopedData } from '../../db/scoped-data';
import type { ScopedSqlBuilder } from '../../db/scoped-sql';
import type { UnitOfWork } from '../unit-of-work';

/**
 * Lead statuses are the tenant's lead status definitions (seeded new/contacted/qualified/
 * unqualified): a lead's status must be one of them, and no code means the default one. Every
 * write of a lead's status holds the definition it names until it commits, so that it is not
 * deleted or given another code under the lead (domain/find-definition.ts): a writer that waited
 * for a delete or a new code finds no definition and writes nothing, as for an unknown status.
 */

/**
 * What a status that is not one of the scope's lead statuses is told: with the scope's codes (a
 * single lead's write, a list's filter), it lists them and names the one `given` probably meant.
 */
export function unknownLeadStatusMessage(given?: string, codes: string[] = [], inList = false): string {
  const wanted = "Must be one of the tenant's lead statuses (GET /v1/config/statuses?entityType=lead)";
  if (!codes.length) return wanted;
  const hint = given === undefined ? null : didYouMean(given, codes, (c) => JSON.stringify(c));
  const listed = `${wanted}: ${codes.map((c) => JSON.stringify(c)).join(', ')}`;
  // A filter's list names the value that is none of them, as contracts/list-filters.ts does.
  if (inList) return `${listed}, or several separated by commas; ${JSON.stringify(given)} is none of them${hint ? `: ${hint}` : ''}`;
  return `${listed}${hint ? `; ${hint}` : ''}`;
}

/** The 422 of a status that is not one of the scope's lead statuses. */
export function unknownLeadStatus(given?: string, codes?: string[]): AppError {
  return validationFailed([{ field: 'status', message: unknownLeadStatusMessage(given, codes) }]);
}

/** The scope's lead status codes, in their order. */
export async function leadStatusCodes(data: ScopedData): Promise<string[]> {
  await ensureSeeded(data, 'lead');
  const rows = await data.repo(StatusDefinition).find({ where: { entityType: 'lead' }, order: { sortOrder: 'ASC', id: 'ASC' } });
  return rows.map((r) => r.code);
}

async function findOrSeed(data: ScopedData, code: string | undefined, lock: DefinitionLock): Promise<string> {
  const found = await findOrSeedDefinition(data, 'lead', code ? { code } : undefined, lock);
  if (!found) throw unknownLeadStatus(code, await leadStatusCodes(data));
  return found.code;
}

/**
 * The lead status `code` names (the default when none), or the 422 of an unknown one. Only looked
 * up: the statement that then writes the lead must hold it (heldLeadStatusesSql).
 */
export function resolveLeadStatus(data: ScopedData, code: string | undefined): Promise<string> {
  return findOrSeed(data, code, 'none');
}

/** As resolveLeadStatus, and holds the definition (FOR KEY SHARE) until `tx` ends: for a transaction that writes the lead after. */
export function holdLeadStatus(tx: UnitOfWork, code: string | undefined): Promise<string> {
  return findOrSeed(tx, code, 'key share');
}

/**
 * Which of `codes` are lead statuses of the scope, each held (FOR KEY SHARE) until `tx` ends:
 * a transaction that writes leads with them writes only the ones returned.
 */
export async function holdLeadStatuses(tx: UnitOfWork, codes: string[]): Promise<Set<string>> {
  if (!codes.length) return new Set();
  const rows = await tx.sql<{ code: string }>(
    (q) =>
      `SELECT s.code FROM ${q.from(StatusDefinition, 's')}
        WHERE s.entity_type = 'lead' AND s.code = ANY(${q.value(codes)}::varchar[]) FOR KEY SHARE`,
  );
  return new Set(rows.map((r) => r.code));
}

/** Whether `code` is one of the scope's lead statuses, held (FOR KEY SHARE) until `tx` ends when it is. */
export async function holdsLeadStatus(tx: UnitOfWork, code: string): Promise<boolean> {
  return (await holdLeadStatuses(tx, [code])).has(code);
}

/**
 * A query whose one row's `held` says whether every one of `codes` (distinct) is a lead status of
 * the scope, and `hintedDefault`, when given, still its default; it holds them FOR KEY SHARE until
 * the statement's transaction ends. For a statement that writes leads only when their statuses,
 * not looked up first or looked up by an earlier statement, still hold: its CTE, evaluated once.
 * `scope`: the statement's scope parameters, when it has them already (scopeValues).
 */
export function heldLeadStatusesSql(
  q: ScopedSqlBuilder,
  codes: string[],
  hintedDefault: string | undefined,
  [tenant, environment]: [string, string] = q.scopeValues(),
): string {
  const stillDefault = hintedDefault === undefined ? '' : ` WHERE s.is_default OR s.code <> ${q.value(hintedDefault)}::varchar`;
  return `SELECT count(*) = ${codes.length} AS held FROM (SELECT s.code, s.is_default FROM ${q.table(StatusDefinition)} s
    WHERE s.tenant_id = ${tenant} AND s.environment = ${environment} AND s.entity_type = 'lead'
      AND s.code = ANY(${q.value(codes)}::varchar[]) FOR KEY SHARE) s${stillDefault}`;
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
