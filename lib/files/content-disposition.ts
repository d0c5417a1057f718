/** RFC 6266/5987: any stored name survives as an attachment's file name, quotes and non-ASCII included. */
export const attachmentDisposition = (filename: string) => `attachment; filename*=UTF-8''${encodeURIComponent(filename)}`;
