import { createReadStream } from 'node:fs';
import { mkdir, realpath, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { notFound } from '../errors';
import type { ApiSignedUrls } from './api-signed-urls';
import { isObjectKey, type FileStorage } from './file-storage';
import { filesRoot, removeBytes } from './local-disk';

export const localPathOf = (key: string, root = filesRoot()) => path.join(root, ...key.split('/'));

const missing = (err: NodeJS.ErrnoException) => err.code === 'ENOENT' || err.code === 'ENOTDIR';

/**
 * Bytes on this machine's disk under FILES_DIR/<object key>: one API process, or a shared volume.
 * Keys reach it inside signed URL tokens too, so it trusts no key: one the server would not build, or
 * whose path leaves FILES_DIR through `..` or a symlink, is "not found", whatever signed it.
 */
export class LocalFileStorage implements FileStorage {
  readonly driver = 'local';

  constructor(
    readonly direct: ApiSignedUrls,
    private readonly root: string = filesRoot(),
  ) {}

  /** The path of `key`; throws 404 when the key is not server-made. */
  private pathOf(key: string): string {
    if (!isObjectKey(key)) throw notFound('File');
    return localPathOf(key, this.root);
  }

  /** Throws 404 unless `p`, with every symlink resolved, is inside the root (itself resolved). */
  private async assertInsideRoot(p: string): Promise<void> {
    const [root, real] = await Promise.all([realpath(this.root), realpath(p)]);
    if (!real.startsWith(root + path.sep)) throw notFound('File');
  }

  /** The path of existing bytes under `key`, or null when there are none. */
  private async existingPathOf(key: string): Promise<string | null> {
    const p = this.pathOf(key);
    try {
      await this.assertInsideRoot(p);
      return p;
    } catch (err) {
      if (missing(err as NodeJS.ErrnoException)) return null;
      throw err;
    }
  }

  async put(key: string, source: { path: string }): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    // rename replaces a symlink at `target` itself, but a symlinked directory on the way would be followed.
    await this.assertInsideRoot(path.dirname(target));
    await rename(source.path, target);
  }

  async open(key: string, range: { start?: number } = {}): Promise<Readable> {
    // Checked before streaming: a stream would only fail after the response headers went out.
    const p = await this.existingPathOf(key);
    if (!p) throw notFound('File');
    return createReadStream(p, { start: range.start ?? 0 });
  }

  async head(key: string): Promise<{ size: number } | null> {
    const p = await this.existingPathOf(key);
    const found = p && (await stat(p).catch((err: NodeJS.ErrnoException) => (missing(err) ? null : Promise.reject(err))));
    return found ? { size: found.size } : null;
  }

  remove(key: string): Promise<void> {
    return removeBytes(this.pathOf(key));
  }
}
