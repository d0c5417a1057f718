import { convert } from 'html-to-text';
import type { Config } from '../../lib/config';
import type { EmailFormat } from '../../db/entities/message';
import { escapeHtml } from '../landing-pages/escape-html';
import { HREF, unescapeAttr, URL_IN_TEXT } from './email-links';
import { signTrackingToken, type TrackingClaims } from './tracking-token';

export interface TrackingSettings {
  secret: string;
  /** Where the public /v1/t routes are reached, e.g. https://api.example.com */
  baseUrl: string;
}

export function trackingSettingsFromConfig(config: Config): TrackingSettings {
  return { secret: config.TRACKING_SECRET, baseUrl: config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}` };
}

export interface ComposeInput {
  subject: string;
  body: string;
  /** As stored with the message: never guessed from the (rendered) body. */
  format: EmailFormat;
  /** The author's links (see authoredLinks): the only ones made clickable and click-tracked. */
  trackedLinks: string[];
  /** Encoded IDs for the tracking tokens. */
  tenantId: string;
  environment: 'live' | 'sandbox';
  messageId: string;
  /** Open pixel and click redirects (messages to a known lead). */
  track: boolean;
  /** Unsubscribe link and List-Unsubscribe headers (campaign email). */
  unsubscribe: boolean;
}

export interface ComposedEmail {
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
}

/** Every character escaped; only the author's URLs become links (through `href`, tracked or not). */
function textToHtml(text: string, isAuthored: (url: string) => boolean, href: (url: string) => string): string {
  let html = '';
  let last = 0;
  for (const m of text.matchAll(URL_IN_TEXT)) {
    const url = m[0];
    html +=
      escapeHtml(text.slice(last, m.index)) +
      (isAuthored(url) ? `<a href="${escapeHtml(href(url))}">${escapeHtml(url)}</a>` : escapeHtml(url));
    last = m.index + url.length;
  }
  html += escapeHtml(text.slice(last));
  return `<div>${html.replace(/\r?\n/g, '<br>\n')}</div>`;
}

/**
 * The text/plain part of an HTML email, by html-to-text: block elements become separated
 * paragraphs and lines, list items keep their bullets or numbers, and each link keeps its URL
 * ("pricing [https://example.com/pricing]"). It reads the author's body, so the text part shows the
 * URLs the author wrote (as text bodies do), not tracking redirects; images are left out.
 */
const htmlToText = (html: string) =>
  convert(html, {
    wordwrap: 78,
    selectors: [
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'img', format: 'skip' },
    ],
  }).trim();

/** The email as sent: HTML and text parts, tracked links, pixel, unsubscribe link and headers. */
export function composeEmail(input: ComposeInput, tracking: TrackingSettings): ComposedEmail {
  const base = tracking.baseUrl.replace(/\/+$/, '');
  const link = (k: TrackingClaims['k'], u?: string) =>
    `${base}/v1/t/${k}/${signTrackingToken(tracking.secret, { k, t: input.tenantId, e: input.environment, m: input.messageId, ...(u ? { u } : {}) })}`;
  const authored = new Set(input.trackedLinks);
  const isAuthored = (url: string) => authored.has(url);
  const href = (url: string) => (input.track ? link('c', url) : url);
  const html =
    input.format === 'html'
      ? input.body.replace(HREF, (whole, url: string) =>
          input.track && isAuthored(unescapeAttr(url)) ? `href="${escapeHtml(href(unescapeAttr(url)))}"` : whole,
        )
      : textToHtml(input.body, isAuthored, href);
  let text = input.format === 'html' ? htmlToText(input.body) : input.body;
  const headers: Record<string, string> = {};
  let tail = '';
  if (input.track) tail += `\n<img src="${link('o')}" width="1" height="1" alt="" style="display:none">`;
  if (input.unsubscribe) {
    const url = link('u');
    tail += `\n<p style="font-size:12px;color:#666"><a href="${url}">Unsubscribe</a></p>`;
    text += `\n\nUnsubscribe: ${url}`;
    headers['List-Unsubscribe'] = `<${url}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return { subject: input.subject, html: insideBody(html, tail), text, headers };
}

/**
 * Appends to the body of a whole HTML document (before its last `</body>`, or `</html>`), not after
 * it: some clients drop what follows `</html>`, and with it the pixel and the unsubscribe link.
 */
function insideBody(html: string, fragment: string): string {
  if (!fragment) return html;
  const lower = html.toLowerCase();
  let at = lower.lastIndexOf('</body');
  if (at === -1) at = lower.lastIndexOf('</html');
  return at === -1 ? html + fragment : `${html.slice(0, at)}${fragment}\n${html.slice(at)}`;
}
