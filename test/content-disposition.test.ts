import { attachmentDisposition } from '../lib/files/content-disposition';

describe('attachment file names', () => {
  it("escape what RFC 5987 leaves out (' ( ) *) and give an ASCII filename beside filename*", () => {
    expect(attachmentDisposition("O'Brien (final)*.pdf")).toBe(
      `attachment; filename="O'Brien (final)*.pdf"; filename*=UTF-8''O%27Brien%20%28final%29%2A.pdf`,
    );
    expect(attachmentDisposition('résumé "日本".pdf')).toBe(
      `attachment; filename="r_sum_ ____.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22%E6%97%A5%E6%9C%AC%22.pdf`,
    );
    expect(attachmentDisposition('100% \\ done.txt')).toBe(
      `attachment; filename="100_ _ done.txt"; filename*=UTF-8''100%25%20%5C%20done.txt`,
    );
  });
});
