/** RFC 5987's attr-char leaves out ' ( ) *, which encodeURIComponent keeps: a raw one ends the value early for browsers. */
const extendedValue = (name: string) =>
  encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** For clients that read only `filename=` (curl -J): printable ASCII, with what it cannot carry as `_`. */
const asciiFallback = (name: string) => name.replace(/[^\x20-\x7e]|["\\%]/g, '_');

/**
 * RFC 6266: any stored name survives as an attachment's file name, quotes and non-ASCII included
 * (`filename*`), with an ASCII `filename` beside it for clients that know no other (section 4.3).
 */
export const attachmentDisposition = (filename: string) =>
  `attachment; filename="${asciiFallback(filename)}"; filename*=UTF-8''${extendedValue(filename)}`;
