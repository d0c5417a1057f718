import { MAX_RECORD_BYTES, type FileRecord } from './file-record';

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;

/**
 * Streams RFC 4180 records (quoted fields, doubled quotes, line breaks inside quotes, CRLF or LF)
 * with the byte offset after each, working on bytes: the delimiters are ASCII, so they never occur
 * inside a UTF-8 sequence, and a field is decoded only once its bytes are complete. Blank lines are
 * skipped. A break outside the loop ends the read (and the stream). A record longer than
 * `maxRecordBytes` is read to its end but yielded without values, marked `tooLong`.
 */
export async function* csvRecords(stream: AsyncIterable<Buffer>, maxRecordBytes = MAX_RECORD_BYTES): AsyncGenerator<FileRecord<string[]>> {
  let fields: string[] = [];
  let parts: Buffer[] = [];
  let quoted = false;
  let quoteSeen = false;
  let fieldEmpty = true;
  let consumed = 0;
  let lines = 0;
  let recordLine = 0;
  let recordStart = 0;
  let tooLong = false;
  // Past the limit, what the record held is dropped and no more of it is kept.
  const checkLength = (at: number) => {
    if (tooLong || at - recordStart <= maxRecordBytes) return;
    tooLong = true;
    fields = [];
    parts = [];
  };

  const endField = (atLineEnd = false) => {
    if (tooLong) {
      parts = [];
      return;
    }
    let bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    // The CR of a CRLF (after an unquoted value or a closing quote).
    if (atLineEnd && bytes.length && bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
    fields.push(bytes.toString('utf8'));
    parts = [];
    fieldEmpty = true;
  };
  const take = (): string[] | null => {
    const record = fields;
    fields = [];
    return record.length === 1 && record[0] === '' ? null : record;
  };

  for await (const chunk of stream) {
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (quoted) {
        if (quoteSeen) {
          quoteSeen = false;
          if (b === QUOTE) {
            start = i; // a doubled quote: keep one
            continue;
          }
          quoted = false; // the quote closed the field; this byte is read as unquoted below
          start = i;
        } else {
          if (b === QUOTE) {
            parts.push(chunk.subarray(start, i));
            quoteSeen = true;
            start = i + 1;
          } else if (b === LF) lines++;
          continue;
        }
      }
      if (b === QUOTE && fieldEmpty) {
        quoted = true;
        fieldEmpty = false;
        start = i + 1;
      } else if (b === COMMA) {
        parts.push(chunk.subarray(start, i));
        endField();
        start = i + 1;
      } else if (b === LF) {
        checkLength(consumed + i);
        parts.push(chunk.subarray(start, i));
        endField(true);
        start = i + 1;
        lines++;
        const end = consumed + i + 1;
        if (tooLong) yield { values: [], line: recordLine, linesAfter: lines, end, tooLong };
        else {
          const record = take();
          if (record) yield { values: record, line: recordLine, linesAfter: lines, end };
        }
        tooLong = false;
        recordStart = end;
        recordLine = lines;
      } else fieldEmpty = false;
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
    consumed += chunk.length;
    checkLength(consumed);
  }
  if (tooLong) yield { values: [], line: recordLine, linesAfter: lines + 1, end: consumed, tooLong };
  else if (parts.length || fields.length) {
    endField();
    const record = take();
    if (record) yield { values: record, line: recordLine, linesAfter: lines + 1, end: consumed };
  }
}
