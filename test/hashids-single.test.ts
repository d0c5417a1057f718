import { randomBytes } from 'node:crypto';
import Hashids from 'hashids';
import { SingleNumberEncoder } from '../lib/hashids-single';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const SAMPLES = [1n, 99n, 100n];

/** Random non-negative integers of every size up to 64 bits, so every remainder by 100 and body length occurs. */
function randomValues(count: number): bigint[] {
  return Array.from({ length: count }, () => {
    const bits = 1 + (randomBytes(1)[0] % 64);
    return randomBytes(8).readBigUInt64BE() >> BigInt(64 - bits);
  });
}

describe('SingleNumberEncoder', () => {
  // The service's shape (13 characters, this alphabet), a padding loop that runs several times, and no padding at all.
  it.each([
    ['the service IDs', 13, ALPHABET],
    ['a long minimum length', 40, ALPHABET],
    ['no minimum length', 0, ALPHABET],
    ["hashids' default alphabet", 13, undefined],
  ])('encodes exactly as hashids does: %s', (_name, minLength, alphabet) => {
    for (let s = 0; s < 5; s++) {
      const hashids = new Hashids(randomBytes(32).toString('hex'), minLength, alphabet);
      const encoder = SingleNumberEncoder.create(hashids, SAMPLES);
      expect(encoder).not.toBeNull();
      for (const n of [0n, ...Array.from({ length: 300 }, (_, i) => BigInt(i)), ...randomValues(3000)]) {
        expect([n, encoder!.encode(n)]).toEqual([n, hashids.encode(n)]);
      }
    }
  });

  it('declines a codec whose internals it does not recognise, so the caller uses the library', () => {
    const hashids = new Hashids('salt', 13, ALPHABET);
    const changed = Object.assign(Object.create(Hashids.prototype) as Hashids, hashids, { alphabet: ALPHABET });
    expect(SingleNumberEncoder.create(changed, SAMPLES)).toBeNull();
  });

  it('declines when its output differs from the library on a sample', () => {
    const hashids = new Hashids('salt', 13, ALPHABET);
    const differing = Object.assign(Object.create(Hashids.prototype) as Hashids, hashids, { encode: () => 'x' });
    expect(SingleNumberEncoder.create(differing, SAMPLES)).toBeNull();
  });
});
