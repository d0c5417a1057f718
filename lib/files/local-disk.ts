import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { config } from '../config';

/** Local bytes live under FILES_DIR: uploads in flight in tmp/ (every driver), stored files too with the local driver. */
export const filesRoot = () => path.resolve(config.FILES_DIR ?? path.join(config.DATA_DIR, 'files'));
export const uploadTempDir = () => path.join(filesRoot(), 'tmp');

export const removeBytes = (p: string) => rm(p, { force: true });

export function sha256Of(p: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(p)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}
