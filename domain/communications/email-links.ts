import type { EmailFormat } from '../../db/entities/message';

/** A URL in plain text. Linear: a match runs to the first space, quote or angle bracket. */
export const URL_IN_TEXT = /https?:\/\/[^\s<>"']+/g;
/** A double-quoted absolute href in HTML. Linear: the URL runs to the next quote. */
export const HREF = /href\s*=\s*"(https?:\/\/[^"]+)"/gi;

export const unescapeAttr = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * The links the author wrote, read from the body BEFORE placeholders are filled in: absolute hrefs
 * of an HTML body, URLs of a text body. A URL holding a placeholder is partly the lead's data, so
 * it is not the author's link. Only these are made clickable and click-tracked when sent; a URL
 * that arrives in a lead's field is never signed into a redirect.
 */
export function authoredLinks(source: string, format: EmailFormat): string[] {
  const urls =
    format === 'html' ? [...source.matchAll(HREF)].map((m) => unescapeAttr(m[1])) : [...source.matchAll(URL_IN_TEXT)].map((m) => m[0]);
  return [...new Set(urls.filter((u) => !u.includes('{{')))];
}
