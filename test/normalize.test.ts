import { normalizePhone } from '../domain/normalize';

describe('phone numbers for duplicate detection', () => {
  it('drop a leading 00 and a (0) after the country code, and guess nothing else', () => {
    for (const phone of [
      '+44 20 7946 0958',
      '+44 (0)20 7946 0958',
      '+44(0)2079460958',
      '+44 (0) 20 7946 0958',
      '+44-(0)20-7946-0958',
      '0044 20 7946 0958',
      '  0044 (0)20 7946 0958',
      '00 44 20 7946 0958',
      '442079460958',
      '44 (0)20 7946 0958',
    ]) {
      expect([phone, normalizePhone(phone)]).toEqual([phone, '442079460958']);
    }
    expect(normalizePhone('+1 (555) 010-2030')).toBe('15550102030');
    expect(normalizePhone('+353 (0)1 234 5678')).toBe('35312345678');
    // Nothing else is guessed: other exit codes, national formats and a (0) elsewhere stay digits.
    expect(normalizePhone('011 44 20 7946 0958')).toBe('011442079460958');
    expect(normalizePhone('020 7946 0958')).toBe('02079460958');
    expect(normalizePhone('(0)20 7946 0958')).toBe('02079460958');
    expect(normalizePhone('+44 20 (0) 7946 0958')).toBe('4420079460958');
    expect(normalizePhone('+0044 20 7946 0958')).toBe('00442079460958');
    expect(normalizePhone('+1 (055) 010-2030')).toBe('10550102030');
  });

  it('keep numbers of fewer than five digits out, after the prefix is dropped', () => {
    expect(normalizePhone('00 1234')).toBeNull();
    expect(normalizePhone('0012345')).toBe('12345');
    expect(normalizePhone(null)).toBeNull();
    expect(normalizePhone('')).toBeNull();
  });
});
