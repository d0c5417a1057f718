/**
 * Content types accepted for upload: documents, images, archives and data exports a sales team
 * attaches to records, and `application/octet-stream` for anything else that is only ever
 * downloaded. Every file is served as an attachment with `nosniff`, whatever its type; types a
 * browser would run or render as a page when opened (HTML, SVG, XML, scripts) are refused all the same.
 */

/** Leading bytes (at an offset) a file of the type starts with; one of the alternatives must match. */
type Signature = { offset: number; bytes: Buffer }[];
const at = (offset: number, bytes: string | number[]) => ({
  offset,
  bytes: typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes),
});

const ZIP: Signature[] = [[at(0, 'PK\x03\x04')], [at(0, 'PK\x05\x06')]];
const OLE: Signature[] = [[at(0, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])]];

/** Declared type -> its magic bytes; `null`: content not checked (text, and bytes of no declared kind). */
const UPLOAD_TYPES: Record<string, Signature[] | null> = {
  'application/pdf': [[at(0, '%PDF-')]],
  'image/png': [[at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])]],
  'image/jpeg': [[at(0, [0xff, 0xd8, 0xff])]],
  'image/gif': [[at(0, 'GIF87a')], [at(0, 'GIF89a')]],
  'image/webp': [[at(0, 'RIFF'), at(8, 'WEBP')]],
  'image/tiff': [[at(0, 'II*\x00')], [at(0, 'MM\x00*')]],
  'image/bmp': [[at(0, 'BM')]],
  'text/plain': null,
  'text/csv': null,
  'application/x-ndjson': null,
  'application/rtf': [[at(0, '{\\rtf')]],
  'application/zip': ZIP,
  'application/gzip': [[at(0, [0x1f, 0x8b])]],
  'application/msword': OLE,
  'application/vnd.ms-excel': OLE,
  'application/vnd.ms-powerpoint': OLE,
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ZIP,
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ZIP,
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': ZIP,
  'audio/mpeg': [[at(0, 'ID3')], [at(0, [0xff, 0xfb])], [at(0, [0xff, 0xf3])], [at(0, [0xff, 0xf2])]],
  'video/mp4': [[at(4, 'ftyp')]],
  'application/octet-stream': null,
};

export const ALLOWED_UPLOAD_TYPES = new Set(Object.keys(UPLOAD_TYPES));

/** How many leading bytes `contentMatchesType` needs to see. */
export const SIGNATURE_BYTES = 16;

/**
 * Whether a file's first bytes are what its declared type starts with, so an HTML page declared
 * as `application/pdf` is not stored (and later served) as a PDF.
 */
export function contentMatchesType(contentType: string, head: Buffer): boolean {
  const signatures = UPLOAD_TYPES[contentType];
  if (signatures === undefined) return false;
  if (signatures === null) return true;
  return signatures.some((sig) => sig.every(({ offset, bytes }) => head.subarray(offset, offset + bytes.length).equals(bytes)));
}

/** What a mismatch answers, the same for both ways of uploading. */
export const contentMismatch = (contentType: string) =>
  `Content is not a ${contentType} file; send it with its real type, or as application/octet-stream`;

/**
 * What an empty file answers, the same for both ways of uploading (the multipart `file` part, a
 * direct upload's declared `size`): a 0-byte attachment is a client that lost its content on the
 * way, never a file anyone meant to keep.
 */
export const EMPTY_FILE = 'File is empty (0 bytes); send the file with its content';
