import { csvLine, spreadsheetText, unguardedText } from '../lib/csv';

describe('CSV fields', () => {
  it('quotes a field holding a quote, a comma, a line break or space at an edge, and nothing else', () => {
    expect(csvLine(['plain', 'a,b', 'say "hi"', 'two\nlines', ' padded', 42, null, undefined])).toBe(
      'plain,"a,b","say ""hi""","two\nlines"," padded",42,,\r\n',
    );
  });

  it("guards what a spreadsheet would run as a formula with a leading ', and leaves numbers and phone numbers alone", () => {
    for (const formula of ['=1+1', '=HYPERLINK("http://x","y")', '@SUM(A1)', '+cmd', '-2+3a', '\tx', '\rx'])
      expect(spreadsheetText(formula)).toBe(`'${formula}`);
    for (const text of ['+44 20 7946 0018', '+1 (415) 555-0100', '-5', '-1.5', 'Ada', "'quoted", 'a=b', '', 7, null])
      expect(spreadsheetText(text)).toBe(text);
  });

  it('reads a guarded value back as it was, and nothing else', () => {
    for (const value of ['=1+1', '@x', '-2+3a', '+cmd', 'Ada', '+44 20 7946 0018', "'quoted", "'+44 20"]) {
      expect(unguardedText(spreadsheetText(value))).toBe(value);
    }
    expect(unguardedText("'Ada")).toBe("'Ada");
  });
});
