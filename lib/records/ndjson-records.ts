import type { FileRecord } from './file-record';

const LF = 0x0a;

/** A line that is not a JSON object is a record too: the caller reports it as a failed row. */
export type NdjsonValue = { object: Record<string, unknown> } | { error: string; text: string };

function parseLine(text: string): NdjsonValue {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return { object: value as Record<string, unknown> };
    return { error: 'Line is not a JSON object', text };
  } catch {
    return { error: 'Line is not valid JSON', text };
  }
}

/** Streams newline-delimited JSON, one record per non-blank line, with the byte offset after each. */
export async function* ndjsonRecords(stream: AsyncIterable<Buffer>): AsyncGenerator<FileRecord<NdjsonValue>> {
  let parts: Buffer[] = [];
  let consumed = 0;
  let lines = 0;
  for await (const chunk of stream) {
    let start = 0;
    for (let i = chunk.indexOf(LF); i !== -1; i = chunk.indexOf(LF, start)) {
      parts.push(chunk.subarray(start, i));
      const text = Buffer.concat(parts).toString('utf8').trim();
      parts = [];
      start = i + 1;
      lines++;
      if (text) yield { values: parseLine(text), line: lines - 1, linesAfter: lines, end: consumed + i + 1 };
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
    consumed += chunk.length;
  }
  const text = Buffer.concat(parts).toString('utf8').trim();
  if (text) yield { values: parseLine(text), line: lines, linesAfter: lines + 1, end: consumed };
}
