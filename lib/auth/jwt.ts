import jwt from 'jsonwebtoken';
import { config } from '../config';

export interface AccessTokenClaims {
  /** Encoded user ID. */
  sub: string;
  /** Encoded tenant ID; must equal the X-Tenant-Id header. */
  tid: string;
}

export function issueAccessToken(claims: AccessTokenClaims): { token: string; expiresIn: number } {
  const expiresIn = config.JWT_TTL_SECONDS;
  const token = jwt.sign({ tid: claims.tid }, config.JWT_SECRET, {
    algorithm: 'HS256',
    subject: claims.sub,
    expiresIn,
    issuer: 'lead-engagement',
  });
  return { token, expiresIn };
}

/** The claims of a valid, unexpired HS256 token from us; null otherwise. */
export function verifyAccessToken(token: string): AccessTokenClaims | null {
  try {
    const payload = jwt.verify(token, config.JWT_SECRET, { algorithms: ['HS256'], issuer: 'lead-engagement' });
    if (typeof payload !== 'object' || typeof payload.sub !== 'string' || typeof payload.tid !== 'string') return null;
    return { sub: payload.sub, tid: payload.tid };
  } catch {
    return null;
  }
}
