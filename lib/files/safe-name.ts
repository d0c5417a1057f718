const MAX_NAME = 255;
/** An extension worth keeping when a long name is cut: a dot and up to 10 letters or digits. */
const EXTENSION = /\.[A-Za-z0-9]{1,10}$/;

/**
 * No path, control or quote characters in a stored name; the client's name is only a label. A name
 * over 255 characters is cut before its extension, so the download still opens with the right app.
 */
export function safeFileName(name: string): string {
  const chars = [...name.replace(/^.*[\\/]/, '')].map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f || c === '"' ? '_' : c));
  if (chars.length <= MAX_NAME) return chars.join('') || 'file';
  const extension = EXTENSION.exec(chars.join(''))?.[0] ?? '';
  return chars.slice(0, MAX_NAME - extension.length).join('') + extension;
}
