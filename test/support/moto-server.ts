import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CreateBucketCommand, HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { freePort } from './free-port';

const MOTO_SERVER = path.resolve(__dirname, '../../.tools/bin/moto_server');

/** moto accepts any credentials; these only have to be present and the same on both sides. */
export const MOTO_CREDENTIALS = { accessKeyId: 'test-access-key', secretAccessKey: 'test-secret-key' };

export interface MotoS3 {
  endpoint: string;
  bucket: string;
  /** Whether an object exists under `key` (a HEAD straight at moto, not through the app). */
  exists(key: string): Promise<boolean>;
  stop(): Promise<void>;
}

/** moto's S3-compatible server on a free loopback port, with one empty bucket. */
export async function startMotoS3(bucket = 'test-files'): Promise<MotoS3> {
  if (!existsSync(MOTO_SERVER)) {
    throw new Error(`moto_server is not installed at ${MOTO_SERVER}: run \`npm run tools:install\` first`);
  }
  const port = await freePort();
  const child = spawn(MOTO_SERVER, ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-2000)));
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntilServing(
    endpoint,
    () => child.exitCode,
    () => stderr,
  );
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: MOTO_CREDENTIALS });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    exists: async (key) => {
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return true;
      } catch (err) {
        if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404) return false;
        throw err;
      }
    },
    stop: async () => {
      client.destroy();
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

/** moto takes a second or two to import its services; poll until it answers HTTP. */
async function waitUntilServing(endpoint: string, exitCode: () => number | null, stderr: () => string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exitCode() !== null) throw new Error(`moto_server exited with ${exitCode()}:\n${stderr()}`);
    const up = await fetch(`${endpoint}/moto-api/`).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`moto_server did not answer at ${endpoint} within ${timeoutMs} ms:\n${stderr()}`);
}
