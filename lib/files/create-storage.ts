import type { Config } from '../config';
import { ApiSignedUrls } from './api-signed-urls';
import type { FileStorage } from './file-storage';
import { LocalFileStorage } from './local-storage';
import { S3FileStorage } from './s3-storage';

/** The app's file storage and how long its presigned URLs last. */
export interface FileSettings {
  storage: FileStorage;
  /** Lifetime of the presigned URLs. */
  urlTtlSeconds: number;
}

/** The storage driver FILES_DRIVER names (config has already refused s3 without a bucket). */
export function createFileStorage(c: Config): FileStorage {
  if (c.FILES_DRIVER === 'local') {
    return new LocalFileStorage(
      new ApiSignedUrls({ baseUrl: c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`, secret: c.FILE_URL_SECRET }),
    );
  }
  return new S3FileStorage({
    bucket: c.S3_BUCKET as string,
    region: c.S3_REGION,
    endpoint: c.S3_ENDPOINT,
    publicEndpoint: c.S3_PUBLIC_ENDPOINT,
    forcePathStyle: c.S3_FORCE_PATH_STYLE,
    credentials:
      c.S3_ACCESS_KEY_ID && c.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: c.S3_ACCESS_KEY_ID, secretAccessKey: c.S3_SECRET_ACCESS_KEY }
        : undefined,
  });
}

export const fileSettingsFromConfig = (c: Config): FileSettings => ({
  storage: createFileStorage(c),
  urlTtlSeconds: c.FILE_URL_TTL_SECONDS,
});
