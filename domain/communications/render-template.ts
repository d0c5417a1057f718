import type { EmailFormat } from '../../db/entities/message';
import { escapeHtml } from '../landing-pages/escape-html';
import { authoredLinks } from './email-links';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g;

function lookup(vars: Record<string, unknown>, path: string): unknown {
  let value: unknown = vars;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return '';
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** A rendering that would exceed its `maxLength`; thrown as soon as it does, before the text is built. */
export class RenderedTooLong extends Error {
  constructor(readonly maxLength: number) {
    super(`The rendered text would exceed ${maxLength.toLocaleString('en-US')} characters`);
  }
}

/**
 * Handlebars-style `{{name}}` / `{{lead.firstName}}` substitution and nothing else: no helpers,
 * no raw `{{{ }}}` output, no prototype lookups. With `html`, every value is HTML-escaped, so a
 * lead's name can never inject markup into an email. Unknown variables render as ''. `maxLength`
 * bounds the output: a short template repeating a long value could otherwise grow a small request
 * into megabytes stored, sent and listed.
 */
export function renderTemplate(template: string, vars: Record<string, unknown>, opts: { html: boolean; maxLength?: number }): string {
  let length = template.length;
  return template.replace(PLACEHOLDER, (match, path: string) => {
    const value = lookup(vars, path);
    const text = value === null || value === undefined || typeof value === 'object' ? '' : String(value);
    const out = opts.html ? escapeHtml(text) : text;
    length += out.length - match.length;
    if (opts.maxLength !== undefined && length > opts.maxLength) throw new RenderedTooLong(opts.maxLength);
    return out;
  });
}

/** What a stored email message needs: the rendered body, its (author's) format and the author's links. */
export interface RenderedEmailBody {
  body: string;
  format: EmailFormat;
  trackedLinks: string[];
}

/** Renders an email body in the format its author gave it: values are escaped into HTML, never parsed as it. */
export function renderEmailBody(source: string, vars: Record<string, unknown>, format: EmailFormat, maxLength?: number): RenderedEmailBody {
  return {
    body: renderTemplate(source, vars, { html: format === 'html', maxLength }),
    format,
    trackedLinks: authoredLinks(source, format),
  };
}
