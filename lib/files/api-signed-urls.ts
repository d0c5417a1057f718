import { SecretBox } from '../secret-box';
import type { DirectTransfers, PresignedRequest } from './file-storage';

/** What a URL allows: one method on one object key, with the declared type (and size, for uploads), until `x`. */
export interface FileUrlClaims {
  m: 'PUT' | 'GET';
  k: string;
  t: string;
  s?: number;
  n?: string;
  /** Expiry, Unix seconds. */
  x: number;
}

const PURPOSE = 'file-url.v1';

/**
 * Presigned URLs for the local driver, answered by the API itself (/v1/files/direct/<token>): the
 * same client flow as with S3, though here the bytes still pass through the API process. The
 * claims are sealed (AES-GCM), not only signed: the object key holds the database's tenant and file
 * numbers, which a readable token would show to anyone holding a URL (the API shows encoded IDs only).
 */
export class ApiSignedUrls implements DirectTransfers {
  private readonly box: SecretBox;

  constructor(private readonly settings: { baseUrl: string; secret: string }) {
    this.box = new SecretBox(settings.secret, PURPOSE);
  }

  async uploadUrl(key: string, object: { contentType: string; size: number }, ttlSeconds: number): Promise<PresignedRequest> {
    return this.issue({ m: 'PUT', k: key, t: object.contentType, s: object.size }, ttlSeconds, { 'Content-Type': object.contentType });
  }

  async downloadUrl(key: string, object: { filename: string; contentType: string }, ttlSeconds: number): Promise<PresignedRequest> {
    return this.issue({ m: 'GET', k: key, t: object.contentType, n: object.filename }, ttlSeconds, {});
  }

  /** The claims of an unexpired, untampered token for `method`, else null. */
  verify(token: string, method: FileUrlClaims['m']): FileUrlClaims | null {
    let claims: FileUrlClaims;
    try {
      claims = JSON.parse(this.box.open(token, PURPOSE)) as FileUrlClaims;
    } catch {
      return null; // altered, truncated, or sealed with another secret
    }
    return claims.m === method && claims.x * 1000 > Date.now() ? claims : null;
  }

  private issue(claims: Omit<FileUrlClaims, 'x'>, ttlSeconds: number, headers: Record<string, string>): PresignedRequest {
    const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
    const token = this.box.seal(JSON.stringify({ ...claims, x: Math.floor(expiresAt.getTime() / 1000) }), PURPOSE);
    return { url: `${this.settings.baseUrl}/v1/files/direct/${token}`, method: claims.m, headers, expiresAt };
  }
}
