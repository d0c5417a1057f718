import { createHmac, timingSafeEqual } from 'node:crypto';

/** o: open pixel, c: click redirect, u: unsubscribe. */
export type TrackingKind = 'o' | 'c' | 'u';

export interface TrackingClaims {
  k: TrackingKind;
  /** Encoded tenant and message IDs, and the message's environment. */
  t: string;
  e: 'live' | 'sandbox';
  m: string;
  /** The original URL, for clicks only. */
  u?: string;
}

const b64 = (buf: Buffer) => buf.toString('base64url');
const sign = (secret: string, payload: string) => createHmac('sha256', secret).update(`tracking.v1.${payload}`).digest().subarray(0, 20);

/** `<payload>.<signature>`, both base64url: the claims are readable but cannot be changed. */
export function signTrackingToken(secret: string, claims: TrackingClaims): string {
  const payload = b64(Buffer.from(JSON.stringify(claims)));
  return `${payload}.${b64(sign(secret, payload))}`;
}

/** The claims of an untampered token of the expected kind, else null (the routes answer 404). */
export function verifyTrackingToken(secret: string, token: string, kind: TrackingKind): TrackingClaims | null {
  const match = /^([A-Za-z0-9_-]{1,4000})\.([A-Za-z0-9_-]{27})$/.exec(token);
  if (!match) return null;
  const expected = sign(secret, match[1]);
  const given = Buffer.from(match[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const claims = JSON.parse(Buffer.from(match[1], 'base64url').toString('utf8')) as TrackingClaims;
    return claims.k === kind ? claims : null;
  } catch {
    return null;
  }
}
