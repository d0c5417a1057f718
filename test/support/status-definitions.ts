import type { EntityType } from '../../contracts/status-definition';
import type { First } from './interleave';
import { validLead, type TestStack, type TestTenant } from './stack';

/** The ID of the tenant's sandbox definition `code` of `entityType`, as the API gives it. */
export async function definitionId(stack: TestStack, t: TestTenant, entityType: EntityType, code: string): Promise<string> {
  const res = await stack.http().get(`/v1/config/statuses?entityType=${entityType}&limit=100`).set(t.sandbox).expect(200);
  return (res.body.data as { id: string; code: string }[]).find((s) => s.code === code)!.id;
}

/** A new sandbox lead of the tenant with status `contacted` (one a status delete or change must count). */
export async function contactedLead(stack: TestStack, t: TestTenant): Promise<{ id: string }> {
  return (
    await stack
      .http()
      .post('/v1/leads')
      .set(t.sandbox)
      .send(validLead({ status: 'contacted' }))
      .expect(201)
  ).body.data;
}

/**
 * The first side of a race (interleave): a delete of the tenant's sandbox definition `code` in the
 * middle of its transaction, as DELETE /v1/config/statuses/:id does it: the row locked FOR UPDATE,
 * then deleted; it commits once the other side waits for it.
 */
export const deleting = (t: TestTenant, entityType: EntityType, code: string): First => ({
  statements: async (tx) => {
    const [row] = await tx.query(
      `SELECT id FROM status_definitions WHERE tenant_id = $1 AND environment = 'sandbox' AND entity_type = $2 AND code = $3 FOR UPDATE`,
      [t.tenant.id, entityType, code],
    );
    await tx.query('DELETE FROM status_definitions WHERE id = $1', [row.id]);
  },
});
