import type { LandingPageDefinition, LandingSection } from '../../contracts/landing-page';
import { escapeHtml as e } from './escape-html';

type Page = Omit<LandingPageDefinition, 'content'>;

const FIELD_INPUTS: Record<string, string> = {
  email: '<label>Email <input type="email" name="email" required maxlength="320"></label>',
  firstName: '<label>First name <input type="text" name="firstName" maxlength="100"></label>',
  lastName: '<label>Last name <input type="text" name="lastName" maxlength="100"></label>',
  phone: '<label>Phone <input type="tel" name="phone" maxlength="40"></label>',
  company: '<label>Company <input type="text" name="company" maxlength="200"></label>',
  message: '<label>Message <textarea name="message" maxlength="2000"></textarea></label>',
};

function section(s: LandingSection, formAction: string | null): string {
  const heading = e(s.heading ?? s.label);
  const body = s.body ? `<p>${e(s.body)}</p>` : '';
  const items = s.items?.length ? `<ul>${s.items.map((i) => `<li>${e(i)}</li>`).join('')}</ul>` : '';
  const inner = `<h${s.type === 'hero' ? 1 : 2}>${heading}</h${s.type === 'hero' ? 1 : 2}>${body}${items}`;
  if (s.type !== 'form') return `<section class="${s.type}" id="${e(s.sectionId)}">${inner}</section>`;
  const action = formAction ? ` action="${e(formAction)}"` : '';
  const fields = (s.fields ?? ['email']).map((f) => FIELD_INPUTS[f]).join('');
  return (
    `<section class="form" id="${e(s.sectionId)}">${inner}` +
    `<form method="post"${action}><input type="hidden" name="sectionId" value="${e(s.sectionId)}">${fields}` +
    `<button type="submit">${e(s.buttonText ?? 'Submit')}</button></form></section>`
  );
}

/**
 * The page's visible sections as HTML, in `order`. Every piece of text is escaped: it may come from
 * a caller or a language model. `formAction` is where the hosted page's form posts (null in the
 * stored `content`, whose host decides).
 */
export function renderSections(page: Page, formAction: string | null = null): string {
  return [...page.sections]
    .filter((s) => s.visible)
    .sort((a, b) => a.order - b.order)
    .map((s) => section(s, formAction))
    .join('\n');
}

/** A whole document for the hosted page; colors and font were validated by the schema (hex, safe font stack). */
export function renderDocument(page: Page, formAction: string | null): string {
  const { primaryColor, backgroundColor, fontFamily } = page.style;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(page.seo.title)}</title><meta name="description" content="${e(page.seo.metaDescription)}">
<style>body{margin:0;font-family:${fontFamily};background:${backgroundColor};color:#111}section{max-width:760px;margin:0 auto;padding:48px 24px}
.hero{text-align:center}h1,h2{color:${primaryColor}}form{display:grid;gap:12px}input,textarea{display:block;width:100%;padding:8px;box-sizing:border-box}
button{background:${primaryColor};color:#fff;border:0;padding:12px 20px;font-size:1rem;cursor:pointer}</style></head>
<body>
${renderSections(page, formAction)}
</body></html>`;
}
