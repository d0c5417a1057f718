import { ID_TYPES, decodeId, encodeId, type IdType } from '../lib/ids';

describe('typed IDs', () => {
  it.each(Object.keys(ID_TYPES) as IdType[])('round-trips %s IDs with 16-17 alphanumeric characters and the type tag', (type) => {
    for (const n of [1, 2, 999, 123456789, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      const id = encodeId(type, n);
      expect(id).toMatch(/^[A-Za-z0-9]{16,17}$/);
      expect(id.startsWith(ID_TYPES[type])).toBe(true);
      expect(decodeId(type, id)).toBe(String(n));
    }
  });

  it('accepts bigint and string database keys', () => {
    expect(decodeId('lead', encodeId('lead', 42n))).toBe('42');
    expect(decodeId('lead', encodeId('lead', '42'))).toBe('42');
  });

  it('rejects an ID of another type, even with the tag swapped', () => {
    const lead = encodeId('lead', 7);
    expect(decodeId('partner', lead)).toBeNull();
    expect(decodeId('partner', 'par' + lead.slice(3))).toBeNull();
  });

  it.each([
    ['empty', ''],
    ['too short', 'lea123'],
    ['too long', 'lea' + 'a'.repeat(20)],
    ['non-alphanumeric', 'lea1234567890-_!'],
    ['SQL', "lea' OR 1=1 --xx"],
    ['a number', 12345],
    ['null', null],
  ])('rejects garbage (%s)', (_label, value) => {
    expect(decodeId('lead', value)).toBeNull();
  });

  it('decodes IDs it has not encoded itself (another process encoded them), with the same checks', () => {
    const id = encodeId('lead', 987654321);
    const tampered = id.slice(0, -1) + (id.endsWith('a') ? 'b' : 'a');
    jest.isolateModules(() => {
      // A fresh copy of the module: its caches have seen none of these IDs.
      const fresh = jest.requireActual<typeof import('../lib/ids')>('../lib/ids');
      expect(fresh.decodeId('lead', tampered)).toBeNull();
      expect(fresh.decodeId('partner', 'par' + id.slice(3))).toBeNull();
      expect(fresh.decodeId('lead', id)).toBe('987654321');
      expect(fresh.decodeId('lead', id)).toBe('987654321');
      expect(fresh.encodeId('lead', 987654321)).toBe(id);
    });
  });

  it('rejects a tampered ID that hashids could still decode', () => {
    const id = encodeId('lead', 123456);
    const tampered = id.slice(0, -1) + (id.endsWith('a') ? 'b' : 'a');
    expect(decodeId('lead', tampered)).toBeNull();
  });
});
