import { depthExceeds, MAX_JSON_DEPTH } from '../json-depth';
import { MAX_RECORD_BYTES, type FileRecord } from './file-record';

const LF = 0x0a;

/** A line that is not a JSON object is a record too: the caller reports it as a failed row. */
export type NdjsonValue = { object: Record<string, unknown> } | { error: string; text: string };

function parseLine(text: string): NdjsonValue {
  try {
    const value: unknown = JSON.parse(text);
    // As for an API body: what lies deeper would only feed recursive walkers (the NUL check, zod).
    if (depthExceeds(value)) return { error: `Line nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`, text };
    if (value && typeof value === 'object' && !Array.isArray(value)) return { object: value as Record<string, unknown> };
    return { error: 'Line is not a JSON object', text };
  } catch {
    return { error: 'Line is not valid JSON', text };
  }
}

/**
 * Streams newline-delimited JSON, one record per non-blank line, with the byte offset after each.
 * A line longer than `maxRecordBytes` is read to its end but not kept: its record is an error.
 */
export async function* ndjsonRecords(
  stream: AsyncIterable<Buffer>,
  maxRecordBytes = MAX_RECORD_BYTES,
): AsyncGenerator<FileRecord<NdjsonValue>> {
  let parts: Buffer[] = [];
  let consumed = 0;
  let lines = 0;
  let lineStart = 0;
  let tooLong = false;
  const value = (): NdjsonValue | null => {
    if (tooLong) return { error: `Line is longer than ${maxRecordBytes} bytes`, text: '' };
    const text = Buffer.concat(parts).toString('utf8').trim();
    return text ? parseLine(text) : null;
  };
  for await (const chunk of stream) {
    let start = 0;
    for (let i = chunk.indexOf(LF); i !== -1; i = chunk.indexOf(LF, start)) {
      if (!tooLong) parts.push(chunk.subarray(start, i));
      tooLong ||= consumed + i - lineStart > maxRecordBytes;
      const record = value();
      parts = [];
      tooLong = false;
      start = i + 1;
      lineStart = consumed + start;
      lines++;
      if (record) yield { values: record, line: lines - 1, linesAfter: lines, end: consumed + i + 1 };
    }
    if (start < chunk.length && !tooLong) parts.push(chunk.subarray(start));
    consumed += chunk.length;
    if (consumed - lineStart > maxRecordBytes) {
      tooLong = true;
      parts = [];
    }
  }
  const record = value();
  if (record) yield { values: record, line: lines, linesAfter: lines + 1, end: consumed };
}
