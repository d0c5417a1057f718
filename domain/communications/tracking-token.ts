import { signToken, verifyToken } from '../../lib/signed-token';

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

/** Part of every signature: tokens already sent in emails must keep verifying. */
const PURPOSE = 'tracking.v1';

export const signTrackingToken = (secret: string, claims: TrackingClaims): string => signToken(secret, PURPOSE, claims);

/** The claims of an untampered token of the expected kind, else null (the routes answer 404). */
export function verifyTrackingToken(secret: string, token: string, kind: TrackingKind): TrackingClaims | null {
  const claims = verifyToken<TrackingClaims>(secret, PURPOSE, token);
  return claims?.k === kind ? claims : null;
}
