import { alike, meantName } from '../lib/near-names';

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
    expect(meantName('fristName', fields)).toBe('firstName');
    expect(meantName('first_name', fields)).toBe('firstName');
    expect(meantName('FirstName', fields)).toBe('firstName');
    expect(meantName('stage', fields)).toBe('stageId');
    expect(meantName('colour', fields)).toBeNull();
    // `Name` is near name, firstName's end is not its beginning: one field, not a guess between several.
    expect(meantName('Name', fields)).toBe('name');
    expect(meantName('la', ['lastName', 'label'])).toBeNull();
  });

  it('takes a name spelled alike before one it begins or ends, and a value of an enum as a name', () => {
    const types = ['email_open', 'link_click', 'email_reply', 'email_sent'];
    expect(meantName('EMAIL_OPEN', types)).toBe('email_open');
    expect(meantName('email-open', types)).toBe('email_open');
    expect(meantName('open', types)).toBe('email_open');
    expect(meantName('click', types)).toBe('link_click');
    expect(meantName('email', types)).toBeNull();
    // Spelled alike wins over a beginning: `name` is near name, though it ends firstName and lastName.
    expect(meantName('Name', ['name', 'firstName', 'lastName'])).toBe('name');
    expect(meantName('name', ['firstName', 'lastName'])).toBeNull();
    expect(meantName('code', ['referralCode', 'tier'])).toBe('referralCode');
  });
});
