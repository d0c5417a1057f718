import { Readable } from 'node:stream';
import { csvRecords } from '../lib/records/csv-records';
import { ndjsonRecords } from '../lib/records/ndjson-records';

/** The same bytes cut into chunks of every small size: records must not depend on where a chunk ends. */
async function readAll<V>(read: (s: Readable) => AsyncGenerator<V>, text: string, size: number): Promise<V[]> {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  const out: V[] = [];
  for await (const r of read(Readable.from(chunks))) out.push(r);
  return out;
}

describe('CSV records', () => {
  const text = 'a,b,c\r\n"x ""q"" y","multi\nline",é\r\n\r\nplain,,"" \n"last","x"';

  it.each([1, 2, 3, 7, 1000])(
    'reads quoted fields, doubled quotes, line breaks inside quotes, CRLF and blank lines (chunks of %i bytes)',
    async (size) => {
      const records = await readAll(csvRecords, text, size);
      expect(records.map((r) => r.values)).toEqual([
        ['a', 'b', 'c'],
        ['x "q" y', 'multi\nline', 'é'],
        ['plain', '', ' '],
        ['last', 'x'],
      ]);
      expect(records.map((r) => [r.line, r.linesAfter])).toEqual([
        [0, 1],
        [1, 3],
        [4, 5],
        [5, 6],
      ]);
      const bytes = Buffer.from(text);
      expect(records.map((r) => r.end)).toEqual([7, bytes.indexOf('\r\n\r\n') + 2, bytes.indexOf('"" \n') + 4, bytes.length]);
    },
  );

  it.each([1, 3, 16, 1000])(
    'drops the values of a record past the length limit, an unclosed quote included, and goes on after it (chunks of %i bytes)',
    async (size) => {
      const long = 'x'.repeat(30);
      const csv = `a,b\n${long},"${long}"\nc,d\n"unclosed,${long}\ne,f\n`;
      const records = await readAll((s) => csvRecords(s, 20), csv, size);
      expect(records.map((r) => [r.values, r.tooLong ?? false, r.line])).toEqual([
        [['a', 'b'], false, 0],
        [[], true, 1],
        [['c', 'd'], false, 2],
        // The quote never closes: the rest of the file is one record, and it is never held whole.
        [[], true, 3],
      ]);
      expect(records.map((r) => r.end)).toEqual([4, 4 + long.length * 2 + 4, 4 + long.length * 2 + 8, Buffer.byteLength(csv)]);
    },
  );

  it('resumes exactly after a record when read again from its end offset', async () => {
    const bytes = Buffer.from(text);
    const [, second] = await readAll(csvRecords, text, 5);
    const rest: string[][] = [];
    for await (const r of csvRecords(Readable.from([bytes.subarray(second.end)]))) rest.push(r.values);
    expect(rest).toEqual([
      ['plain', '', ' '],
      ['last', 'x'],
    ]);
  });
});

describe('NDJSON records', () => {
  it('reads one object per non-blank line and reports lines that are not JSON objects', async () => {
    const text = '{"a":1}\n\nnope\n[1]\n{"b":"é"}';
    for (const size of [1, 4, 100]) {
      const records = await readAll(ndjsonRecords, text, size);
      expect(records.map((r) => [r.line, r.values])).toEqual([
        [0, { object: { a: 1 } }],
        [2, { error: 'Line is not valid JSON', text: 'nope' }],
        [3, { error: 'Line is not a JSON object', text: '[1]' }],
        [4, { object: { b: 'é' } }],
      ]);
      expect(records[3].end).toBe(Buffer.byteLength(text));
    }
  });

  it('reports a line nested deeper than an API body may be (32 levels) as an error, however deep', async () => {
    const nested = (depth: number) => `{"email":"a@example.com","x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const records = await readAll(ndjsonRecords, [nested(31), nested(32), nested(200_000)].join('\n'), 65536);
    expect(records.map((r) => ('error' in r.values ? r.values.error : 'ok'))).toEqual([
      'ok',
      'Line nests objects and arrays more than 32 levels deep',
      'Line nests objects and arrays more than 32 levels deep',
    ]);
  });

  it.each([1, 5, 1000])('reports a line past the length limit as an error and goes on after it (chunks of %i bytes)', async (size) => {
    const text = `{"a":1}\n{"long":"${'x'.repeat(40)}"}\n{"b":2}\n{"tail":"${'y'.repeat(40)}"}`;
    const records = await readAll((s) => ndjsonRecords(s, 20), text, size);
    expect(records.map((r) => [r.line, r.values])).toEqual([
      [0, { object: { a: 1 } }],
      [1, { error: 'Line is longer than 20 bytes', text: '' }],
      [2, { object: { b: 2 } }],
      [3, { error: 'Line is longer than 20 bytes', text: '' }],
    ]);
  });
});
