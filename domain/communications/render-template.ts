import { escapeHtml } from '../landing-pages/escape-html';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g;

function lookup(vars: Record<string, unknown>, path: string): unknown {
  let value: unknown = vars;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return '';
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * Handlebars-style `{{name}}` / `{{lead.firstName}}` substitution and nothing else: no helpers,
 * no raw `{{{ }}}` output, no prototype lookups. With `html`, every value is HTML-escaped, so a
 * lead's name can never inject markup into an email. Unknown variables render as ''.
 */
export function renderTemplate(template: string, vars: Record<string, unknown>, opts: { html: boolean }): string {
  return template.replace(PLACEHOLDER, (_m, path: string) => {
    const value = lookup(vars, path);
    const text = value === null || value === undefined || typeof value === 'object' ? '' : String(value);
    return opts.html ? escapeHtml(text) : text;
  });
}

/** Whether a body is HTML (and is sent as such) or plain text (and gets converted for tracking). */
export const looksLikeHtml = (body: string) => /<\/?[a-z][\s\S]*>/i.test(body);
