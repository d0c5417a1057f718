const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes text for HTML element content and quoted attribute values. */
export const escapeHtml = (s: string) => s.replace(/[&<>"'`]/g, (c) => ENTITIES[c]);
