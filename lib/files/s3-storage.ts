import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { attachmentDisposition } from './content-disposition';
import type { DirectTransfers, FileStorage, PresignedRequest } from './file-storage';

export interface S3Settings {
  bucket: string;
  region: string;
  endpoint?: string;
  /**
   * Where clients reach the same bucket, when that differs from `endpoint` (compose: the API talks
   * to http://minio:9000, a browser to http://localhost:9000). Presigned URLs are signed for it.
   */
  publicEndpoint?: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** An S3-compatible bucket (AWS, MinIO, R2, moto); any number of API processes share it. */
export class S3FileStorage implements FileStorage, DirectTransfers {
  readonly driver = 's3';
  readonly direct = this;
  private readonly client: S3Client;
  /** Signs the URLs clients use (SigV4 signs the host, so it must be the one they connect to). */
  private readonly signer: S3Client;
  private readonly bucket: string;

  constructor(settings: S3Settings) {
    this.bucket = settings.bucket;
    const client = (endpoint: string | undefined) =>
      new S3Client({
        region: settings.region,
        endpoint,
        forcePathStyle: settings.forcePathStyle,
        credentials: settings.credentials,
        // The SDK's default checksums would sign a CRC of an empty body into presigned PUT URLs, and
        // not every S3-compatible service accepts them; the size is checked on completion instead.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
    this.client = client(settings.endpoint);
    this.signer = settings.publicEndpoint ? client(settings.publicEndpoint) : this.client;
  }

  async put(key: string, source: { path: string; size: number; contentType: string }): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: createReadStream(source.path),
        ContentLength: source.size,
        ContentType: source.contentType,
      }),
    );
  }

  async open(key: string, range: { start?: number } = {}): Promise<Readable> {
    // A start at or past the end is S3's 416 (InvalidRange): callers compare with the size first.
    const Range = range.start ? `bytes=${range.start}-` : undefined;
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range }));
    return object.Body as Readable;
  }

  async head(key: string): Promise<{ size: number; contentType?: string } | null> {
    try {
      const object = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: object.ContentLength ?? 0, contentType: object.ContentType };
    } catch (err) {
      if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404) return null;
      throw err;
    }
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async uploadUrl(key: string, object: { contentType: string; size: number }, ttlSeconds: number): Promise<PresignedRequest> {
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: object.contentType, ContentLength: object.size });
    // Signing the type and length makes S3 itself refuse a different file on this URL.
    const url = await getSignedUrl(this.signer, command, {
      expiresIn: ttlSeconds,
      signableHeaders: new Set(['content-type', 'content-length']),
    });
    return { url, method: 'PUT', headers: { 'Content-Type': object.contentType }, expiresAt: expiresIn(ttlSeconds) };
  }

  async downloadUrl(key: string, object: { filename: string; contentType: string }, ttlSeconds: number): Promise<PresignedRequest> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: attachmentDisposition(object.filename),
      ResponseContentType: object.contentType,
    });
    const url = await getSignedUrl(this.signer, command, { expiresIn: ttlSeconds });
    return { url, method: 'GET', headers: {}, expiresAt: expiresIn(ttlSeconds) };
  }
}

const expiresIn = (seconds: number) => new Date(Date.now() + seconds * 1000);
