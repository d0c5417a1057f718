import type { Readable } from 'node:stream';
import type { TenantScope } from '../../db/scoped-repository';

/** A request the client makes itself, straight to the storage service. */
export interface PresignedRequest {
  url: string;
  method: 'PUT' | 'GET';
  /** Headers the client must send as given (they are part of the signature). */
  headers: Record<string, string>;
  expiresAt: Date;
}

/** Transfers that bypass the API, for files too large to stream through it. */
export interface DirectTransfers {
  uploadUrl(key: string, object: { contentType: string; size: number }, ttlSeconds: number): Promise<PresignedRequest>;
  downloadUrl(key: string, object: { filename: string; contentType: string }, ttlSeconds: number): Promise<PresignedRequest>;
}

/** Where file bytes live. Keys come from `objectKey`, never from user-supplied names. */
export interface FileStorage {
  readonly driver: 'local' | 's3';
  /** Stores a received upload's temporary file under `key` (the local driver moves it; the caller removes what is left). */
  put(key: string, source: { path: string; size: number; contentType: string }): Promise<void>;
  /** The stored bytes from byte `start` on (default 0); rejects before anything is sent when they are missing. */
  open(key: string, range?: { start?: number }): Promise<Readable>;
  /** Size and type of what is stored under `key`, or null when nothing is. */
  head(key: string): Promise<{ size: number; contentType?: string } | null>;
  /** Removes the bytes; nothing stored is not an error. */
  remove(key: string): Promise<void>;
  /** Presigned URLs: S3's own, or with the local driver URLs the API signs and answers itself. */
  readonly direct: DirectTransfers;
}

/** <tenant>/<environment>/<file id>: one tenant's and environment's files never share a prefix. */
export const objectKey = (scope: TenantScope, fileId: string) => `${scope.tenantId}/${scope.environment}/${fileId}`;

const OBJECT_KEY = /^([0-9]+)\/(live|sandbox)\/([0-9]+)$/;

/** The shape `objectKey` builds (database keys are digits): anything else did not come from the server. */
export const isObjectKey = (key: string) => OBJECT_KEY.test(key);

/** The scope and file ID `objectKey` built `key` from; null for a key of any other shape. */
export function parseObjectKey(key: string): { scope: TenantScope; fileId: string } | null {
  const match = OBJECT_KEY.exec(key);
  return match ? { scope: { tenantId: match[1], environment: match[2] as TenantScope['environment'] }, fileId: match[3] } : null;
}
