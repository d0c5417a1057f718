import { safeFileName } from '../lib/files/safe-name';

describe('stored file names', () => {
  it('drop the path, replace control characters and quotes, and keep the extension when a long name is cut', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('C:\\Users\\ada\\q"u\u0001.pdf')).toBe('q_u_.pdf');
    expect(safeFileName('')).toBe('file');
    const long = safeFileName(`${'a'.repeat(300)}.txt`);
    expect([long.length, long.endsWith('aaa.txt')]).toEqual([255, true]);
    const emoji = safeFileName(`${'😀'.repeat(300)}.pdf`);
    expect([[...emoji].length, emoji.endsWith('😀.pdf')]).toEqual([255, true]);
    expect([...safeFileName('b'.repeat(300))].length).toBe(255);
  });
});
