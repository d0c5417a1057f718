import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';

/**
 * Streams bytes as the response body. A client that leaves mid-transfer, or closes its side as the
 * last byte goes out (curl, urllib), ends the stream "prematurely" on our side: that is the
 * client's choice, not a server error to log and alert on. Anything else (a storage read failing)
 * still propagates.
 */
export async function streamBody(stream: Readable, res: Response): Promise<void> {
  try {
    await pipeline(stream, res);
  } catch (err) {
    const clientLeft = (err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' && (res.writableFinished || res.destroyed);
    if (!clientLeft) throw err;
  }
}
