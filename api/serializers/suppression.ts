import type { EmailSuppression } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { Suppression } from '../../contracts/suppression';

export const serializeSuppression = (s: EmailSuppression): Suppression => ({
  id: encodeId('suppression', s.id),
  email: s.address,
  reason: s.reason,
  createdAt: s.createdAt.toISOString(),
  updatedAt: s.updatedAt.toISOString(),
});
