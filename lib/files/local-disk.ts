import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { TenantScope } from '../../db/scoped-repository';
import { config } from '../config';

/** Where uploaded bytes live: <root>/<tenant>/<environment>/<file id>; uploads land in <root>/tmp first. */
export const filesRoot = () => path.resolve(config.FILES_DIR ?? path.join(config.DATA_DIR, 'files'));
export const uploadTempDir = () => path.join(filesRoot(), 'tmp');
export const storedPath = (scope: TenantScope, id: string) => path.join(filesRoot(), scope.tenantId, scope.environment, id);

export async function moveIntoPlace(tempPath: string, scope: TenantScope, id: string): Promise<void> {
  const target = storedPath(scope, id);
  await mkdir(path.dirname(target), { recursive: true });
  await rename(tempPath, target);
}

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
