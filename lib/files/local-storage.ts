import { createReadStream } from 'node:fs';
import { access, mkdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { ApiSignedUrls } from './api-signed-urls';
import type { FileStorage } from './file-storage';
import { filesRoot, removeBytes } from './local-disk';

export const localPathOf = (key: string, root = filesRoot()) => path.join(root, ...key.split('/'));

/** Bytes on this machine's disk under FILES_DIR/<object key>: one API process, or a shared volume. */
export class LocalFileStorage implements FileStorage {
  readonly driver = 'local';

  constructor(
    readonly direct: ApiSignedUrls,
    private readonly root: string = filesRoot(),
  ) {}

  private pathOf(key: string): string {
    return localPathOf(key, this.root);
  }

  async put(key: string, source: { path: string }): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(source.path, target);
  }

  async open(key: string): Promise<Readable> {
    await access(this.pathOf(key)); // a stream would only fail after the response headers went out
    return createReadStream(this.pathOf(key));
  }

  async head(key: string): Promise<{ size: number } | null> {
    const found = await stat(this.pathOf(key)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    return found && { size: found.size };
  }

  remove(key: string): Promise<void> {
    return removeBytes(this.pathOf(key));
  }
}
