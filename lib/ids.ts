import { createHmac } from 'node:crypto';
import Hashids from 'hashids';
import { config } from './config';
import { SingleNumberEncoder } from './hashids-single';

/**
 * Public IDs: a 3-letter type tag + hashids of the bigint primary key (16-17 chars in all).
 * Each type has its own salt, so a lead's ID never decodes as a partner's, and decoding is
 * checked by re-encoding: garbage that hashids happens to decode is still rejected.
 */
export const ID_TYPES = {
  tenant: 'ten',
  user: 'usr',
  team: 'tea',
  apiKey: 'key',
  lead: 'lea',
  opportunity: 'opp',
  partner: 'par',
  task: 'tsk',
  file: 'fil',
  campaign: 'cmp',
  workflow: 'wfl',
  message: 'msg',
  /** A webhook event (the outbox). */
  event: 'evt',
  /** An open, click, reply... (spec 6.3): its own tag, so it never shares an ID with a webhook event. */
  engagementEvent: 'eng',
  course: 'crs',
  addon: 'add',
  webhook: 'whk',
  delivery: 'dlv',
  status: 'sts',
  enrollment: 'enr',
  form: 'frm',
  formSubmission: 'fsb',
  commission: 'com',
  auditLog: 'aud',
  landingPage: 'lpg',
  agentExecution: 'agx',
  emailTemplate: 'tpl',
  suppression: 'sup',
  operation: 'opr',
  sender: 'snd',
  dkimKey: 'dkm',
  leadImport: 'imp',
  pendingEnrollment: 'pen',
} as const;

export type IdType = keyof typeof ID_TYPES;

const TAG_LENGTH = 3;
const BODY_MIN_LENGTH = 13;
/** The characters of public IDs (and of other opaque values made the same way, lib/change-cursor.ts). */
export const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

interface Codec {
  hashids: Hashids;
  /** Encodes as hashids does, faster (null: the library's own encode). */
  encoder: SingleNumberEncoder | null;
}

const codecs = new Map<IdType, Codec>();
/** Checked against the library when a codec is made: short and long bodies, the padding loop, BigInt-only values. */
const ENCODER_SAMPLES = [1n, 2n, 42n, 99n, 100n, 12_345n, 987_654_321n, 2n ** 53n + 1n, 2n ** 63n - 1n];

function codec(type: IdType): Codec {
  let c = codecs.get(type);
  if (!c) {
    const salt = createHmac('sha256', config.ID_SECRET).update(`id:${type}`).digest('hex');
    const hashids = new Hashids(salt, BODY_MIN_LENGTH, ID_ALPHABET);
    c = { hashids, encoder: SingleNumberEncoder.create(hashids, ENCODER_SAMPLES) };
    codecs.set(type, c);
  }
  return c;
}

/**
 * Recently encoded IDs, both ways. One record's ID is encoded several times per request (the
 * response, its search document, its event, its audit entry) and the same user's in every row it
 * owns, and an encode cost a few microseconds of hashids arithmetic: about 8 % of the API's CPU in
 * a batch create before this cache (SingleNumberEncoder has since made a miss cheaper). A decode
 * costs more (hashids encodes again to check), and requests mostly name IDs this process has
 * seen: the open pixel decodes its token's tenant and message on every hit (hashids was 6 % of the
 * API's CPU in T4-open). Only canonical encodings go in, so a cached decode is exactly what
 * hashids would answer. Cleared whole when full, which costs less than tracking recency.
 */
const encoded = new Map<string, string>();
const decoded = new Map<string, string>();
const CACHED_MAX = 50_000;

/** Both ways at once, so `decoded` never holds more than `encoded`. */
function remember(key: string, value: string, id: string): void {
  if (encoded.size >= CACHED_MAX) {
    encoded.clear();
    decoded.clear();
  }
  encoded.set(key, value);
  decoded.set(value, id);
}

export function encodeId(type: IdType, id: string | number | bigint): string {
  const key = ID_TYPES[type] + String(id);
  let value = encoded.get(key);
  if (value === undefined) {
    const n = BigInt(id);
    const { hashids, encoder } = codec(type);
    value = ID_TYPES[type] + (encoder && n >= 0n ? encoder.encode(n) : hashids.encode(n));
    remember(key, value, n.toString());
  }
  return value;
}

/** Which of `types` an encoded ID's prefix names, if any (the ID may still name no record). */
export function idTypeOf<T extends IdType>(types: readonly T[], value: string): T | undefined {
  return types.find((t) => value.startsWith(ID_TYPES[t]));
}

/** Returns the database key as a decimal string, or null when `value` is not an ID of `type`. */
export function decodeId(type: IdType, value: unknown): string | null {
  if (typeof value !== 'string' || value.length < 16 || value.length > 17) return null;
  if (!value.startsWith(ID_TYPES[type]) || !/^[A-Za-z0-9]+$/.test(value)) return null;
  const known = decoded.get(value);
  if (known !== undefined) return known;
  const body = value.slice(TAG_LENGTH);
  let numbers: ReturnType<Hashids['decode']>;
  try {
    numbers = codec(type).hashids.decode(body);
  } catch {
    return null;
  }
  if (numbers.length !== 1) return null;
  const n = BigInt(numbers[0]);
  // Canonical only (encodeId then caches it both ways).
  if (n <= 0n || encodeId(type, n) !== value) return null;
  return n.toString();
}
