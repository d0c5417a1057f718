/**
 * One record of a data file read from some byte offset. Offsets and lines count from where the
 * read started, so a caller that stored them can resume exactly after the record.
 */
export interface FileRecord<V> {
  values: V;
  /** 0-based physical line (from the read's start) where the record begins. */
  line: number;
  /** Physical lines consumed through the end of the record. */
  linesAfter: number;
  /** Bytes consumed through the end of the record (its line break included). */
  end: number;
  /** A CSV record longer than the reader's limit: its values were dropped unread (empty). */
  tooLong?: true;
}

/**
 * A record's size limit, 1 MB: no lead comes near it, and a reader holds at most this much of a
 * record (plus one read's worth) in memory, whatever the file: an unclosed quote or a missing line
 * break cannot make it buffer the rest of a 200 MB file.
 */
export const MAX_RECORD_BYTES = 1024 * 1024;
