import { createHmac } from 'node:crypto';
import Hashids from 'hashids';
import { config } from './config';
import { ID_ALPHABET } from './ids';

/** A place in a change feed: after the record `id` of the transaction `xid` (both bigints, as text). */
export interface ChangePosition {
  xid: string;
  id: string;
}

/** Before every change: where a feed read without a cursor starts. */
export const FEED_START: ChangePosition = { xid: '0', id: '0' };

const PREFIX = 'chg_';
let codec: Hashids | undefined;
/** Salted from ID_SECRET as IDs are: the cursor shows neither internal IDs nor how many transactions the database ran. */
const hashids = () =>
  (codec ??= new Hashids(createHmac('sha256', config.ID_SECRET).update('cursor:changes').digest('hex'), 16, ID_ALPHABET));

export const encodeChangeCursor = (p: ChangePosition): string => PREFIX + hashids().encode([BigInt(p.xid), BigInt(p.id)]);

/** The place `cursor` names, or null when this API did not make it (checked by encoding it again). */
export function decodeChangeCursor(cursor: string): ChangePosition | null {
  if (!cursor.startsWith(PREFIX)) return null;
  const body = cursor.slice(PREFIX.length);
  let numbers: (number | bigint)[];
  try {
    numbers = hashids().decode(body);
  } catch {
    return null;
  }
  if (numbers.length !== 2 || hashids().encode(numbers) !== body) return null;
  return { xid: String(numbers[0]), id: String(numbers[1]) };
}
