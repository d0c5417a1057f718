import { alike, meantField } from '../lib/near-names';

describe('near names (hints of a 404 and of an unknown field)', () => {
  it('takes a word one edit, one swap of neighbours or a plural away as alike, from four letters on', () => {
    expect(alike('campains', 'campaigns')).toBe(true);
    expect(alike('fristname', 'firstname')).toBe(true);
    expect(alike('lead', 'leads')).toBe(true);
    expect(alike('opportunity', 'opportunities')).toBe(true);
    expect(alike('tag', 'tab')).toBe(false);
    expect(alike('name', 'value')).toBe(false);
  });

  it('finds the one field an unknown one probably meant, and none when several or none are near', () => {
    const fields = ['name', 'value', 'stageId', 'firstName', 'lastName', 'closeDate'];
    expect(meantField('fristName', fields)).toBe('firstName');
    expect(meantField('first_name', fields)).toBe('firstName');
    expect(meantField('FirstName', fields)).toBe('firstName');
    expect(meantField('stage', fields)).toBe('stageId');
    expect(meantField('colour', fields)).toBeNull();
    // `Name` is near name, firstName's end is not its beginning: one field, not a guess between several.
    expect(meantField('Name', fields)).toBe('name');
    expect(meantField('la', ['lastName', 'label'])).toBeNull();
  });
});
