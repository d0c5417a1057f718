import { encodeId, type IdType } from '../../lib/ids';

export const encodeIdOrNull = (type: IdType, id: string | null): string | null => (id === null ? null : encodeId(type, id));
export const isoOrNull = (d: Date | null): string | null => d?.toISOString() ?? null;
