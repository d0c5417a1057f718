/** No path, control or quote characters in a stored name; the client's name is only a label. */
export const safeFileName = (name: string) =>
  [...name.replace(/^.*[\\/]/, '')]
    .map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f || c === '"' ? '_' : c))
    .join('')
    .slice(0, 255) || 'file';
