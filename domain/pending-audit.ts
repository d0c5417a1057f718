import { AuditLog } from '../db/entities';
import type { ScopedData } from '../db/scoped-data';
import type { TenantScope } from '../db/scoped-repository';
import type { ScopedSqlBuilder } from '../db/scoped-sql';
import { encodeId, ID_TYPES, type IdType } from '../lib/ids';
import { auditRow, type AuditEntry } from './audit';

/** The stored entry, as written with the change. */
export interface WrittenAudit {
  id: string;
  resourceId: string | null;
  statusCode: number;
}

/** What carries a request's pending entry to the changes it makes: the request's domain context (DomainContext.audit). */
export interface AuditHolder {
  audit?: PendingAudit;
  scope: TenantScope;
}

/**
 * The audit entry of the mutating request being handled, carried by the request's domain context.
 * The first unit of work that commits a change in the request's tenant and environment writes it
 * in its own transaction (the one-statement lead create, in its statement), so the change and its
 * entry commit together or not at all: a failed entry fails the change, and the client's retry
 * cannot repeat it. A request whose change goes through no unit of work gets its entry after the
 * handler (AuditLogWriter). See docs/decisions.md, "Audit log".
 */
export class PendingAudit {
  private state: 'open' | 'claimed' | 'closed' = 'open';
  private written: WrittenAudit | null = null;
  private settled: Promise<void> = Promise.resolve();

  /** `entry` as known before the handler runs: the resource ID from the path, the route's status. */
  constructor(readonly entry: AuditEntry) {}

  /**
   * After the handler: the entry written with the change, or null once no change can write it any
   * more (the caller then writes it itself). Waits for a claim still in flight (work the handler
   * started without awaiting it).
   */
  async close(): Promise<WrittenAudit | null> {
    while (this.state === 'claimed') await this.settled;
    this.state = 'closed';
    return this.written;
  }

  /** The request's entry, while still open for a change in the holder's scope (a context built for another scope carries it too). */
  static openFor({ audit: p, scope }: AuditHolder): PendingAudit | null {
    if (!p || p.state !== 'open') return null;
    return p.entry.auth.tenantId === scope.tenantId && p.entry.auth.environment === scope.environment ? p : null;
  }

  /**
   * Takes the entry for a change about to be written in `scope`, or null when it is not this
   * request's to write (no request, another scope, already written or being written). The claim
   * must end with `done`: the written entry once committed, or null when the change rolled back.
   */
  static claim(holder: AuditHolder): AuditClaim | null {
    const p = PendingAudit.openFor(holder);
    if (!p) return null;
    p.state = 'claimed';
    let finish!: () => void;
    p.settled = new Promise((resolve) => (finish = resolve));
    return {
      row: (resourceId) => auditRow({ ...p.entry, resourceId: p.entry.resourceId ?? resourceId }),
      done: (written) => {
        p.written = written;
        p.state = written ? 'closed' : 'open';
        finish();
      },
    };
  }
}

/** Whether a change in the holder's scope written now would write the request's entry (claim() would return one). */
export const auditPendingFor = (holder: AuditHolder): boolean => PendingAudit.openFor(holder) !== null;

export interface AuditClaim {
  /** The row to insert; `resourceId` is used when the path names none (a create). */
  row(resourceId: string | null): Partial<AuditLog>;
  done(written: WrittenAudit | null): void;
}

/** `INSERT` of the claimed entry, to compose into a statement (its RETURNING gives the row's id). */
export const auditInsertSql = (q: ScopedSqlBuilder, row: Partial<AuditLog>, opts: { where?: string } = {}): string =>
  q.insert(AuditLog, row, opts);

/**
 * For a change written by one statement that commits on its own (no unit of work): the request's
 * entry, when this change may write it, goes into that statement. `write` gets the entry's row
 * (null when it is not this change's to write) and returns its result with the stored entry's ID
 * (null when the statement wrote nothing).
 */
export async function writeWithAudit<R>(
  holder: AuditHolder,
  resourceId: string | null,
  write: (row: Partial<AuditLog> | null) => Promise<{ result: R; auditId: string | null }>,
): Promise<R> {
  const claim = PendingAudit.claim(holder);
  const row = claim?.row(resourceId) ?? null;
  let written: { result: R; auditId: string | null };
  try {
    written = await write(row);
  } catch (err) {
    claim?.done(null);
    throw err;
  }
  claim?.done(row && writtenAudit(row, written.auditId));
  return written.result;
}

/** The entry `row` as stored with its change under `id`; null when the statement stored none. */
export const writtenAudit = (row: Partial<AuditLog>, id: string | null | undefined): WrittenAudit | null =>
  id ? { id, resourceId: row.resourceId ?? null, statusCode: row.statusCode as number } : null;

/** Writes the claimed entry inside the change's transaction. */
export async function insertClaimedAudit(data: ScopedData, claim: AuditClaim, result: unknown): Promise<WrittenAudit> {
  const row = claim.row(publicIdOf(result));
  const [stored] = await data.sql<{ id: string }>((q) => `${auditInsertSql(q, row)} RETURNING id::text`);
  return { id: stored.id, resourceId: row.resourceId ?? null, statusCode: row.statusCode as number };
}

/** Entities whose class name is not the name of their ID type. */
const ID_TYPE_OF_ENTITY: Record<string, IdType> = {
  CampaignEnrollment: 'enrollment',
  EmailSender: 'sender',
  EmailSuppression: 'suppression',
  SequenceDefinition: 'workflow',
  StatusDefinition: 'status',
  StoredFile: 'file',
  TrainingCourse: 'course',
  WebhookDelivery: 'delivery',
  WebhookEndpoint: 'webhook',
};

/**
 * The public ID of what a unit of work returned, when it is an entity with an ID type (Lead ->
 * lead), alone or as the only one in a list. Anything else leaves it to the
 * response, which corrects the entry after: one more statement for the request.
 */
function publicIdOf(result: unknown): string | null {
  const one: unknown = Array.isArray(result) && result.length === 1 ? result[0] : result;
  if (!one || typeof one !== 'object' || !('id' in one)) return null;
  const name = one.constructor.name;
  const type = ID_TYPE_OF_ENTITY[name] ?? name.charAt(0).toLowerCase() + name.slice(1);
  return type in ID_TYPES ? encodeId(type as IdType, String(one.id)).slice(0, 40) : null;
}
