import { escapeHtml } from '../landing-pages/escape-html';
import { looksLikeHtml } from './render-template';
import { signTrackingToken, type TrackingClaims } from './tracking-token';

export interface TrackingSettings {
  secret: string;
  /** Where the public /v1/t routes are reached, e.g. https://api.example.com */
  baseUrl: string;
}

export interface ComposeInput {
  subject: string;
  body: string;
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

const URL_IN_TEXT = /https?:\/\/[^\s<>"']+/g;
const HREF = /href\s*=\s*"(https?:\/\/[^"]+)"/gi;

function textToHtml(text: string): string {
  const linked = escapeHtml(text).replace(URL_IN_TEXT, (url) => `<a href="${url}">${url}</a>`);
  return `<div>${linked.replace(/\r?\n/g, '<br>\n')}</div>`;
}

const htmlToText = (html: string) =>
  html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>/gi, '\n\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .trim();

const unescapeAttr = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The email as sent: HTML and text parts, tracked links, pixel, unsubscribe link and headers. */
export function composeEmail(input: ComposeInput, tracking: TrackingSettings): ComposedEmail {
  const base = tracking.baseUrl.replace(/\/+$/, '');
  const link = (k: TrackingClaims['k'], u?: string) =>
    `${base}/v1/t/${k}/${signTrackingToken(tracking.secret, { k, t: input.tenantId, e: input.environment, m: input.messageId, ...(u ? { u } : {}) })}`;
  let html = looksLikeHtml(input.body) ? input.body : textToHtml(input.body);
  let text = looksLikeHtml(input.body) ? htmlToText(input.body) : input.body;
  const headers: Record<string, string> = {};
  if (input.track) {
    html = html.replace(HREF, (_m, url: string) => `href="${escapeHtml(link('c', unescapeAttr(url)))}"`);
    html += `\n<img src="${link('o')}" width="1" height="1" alt="" style="display:none">`;
  }
  if (input.unsubscribe) {
    const url = link('u');
    html += `\n<p style="font-size:12px;color:#666"><a href="${url}">Unsubscribe</a></p>`;
    text += `\n\nUnsubscribe: ${url}`;
    headers['List-Unsubscribe'] = `<${url}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return { subject: input.subject, html, text, headers };
}
