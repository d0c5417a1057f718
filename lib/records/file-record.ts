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
}
