import type { Readable } from 'node:stream';
import type { Response } from 'express';
import { attachmentDisposition } from '../../lib/files/content-disposition';
import { streamBody } from './stream-body';

/** A CSV file's answer, streamed as its rows are read: a download, never shown as a page. */
export async function sendCsv(res: Response, filename: string, rows: Readable): Promise<void> {
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', attachmentDisposition(filename));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  await streamBody(rows, res);
}
