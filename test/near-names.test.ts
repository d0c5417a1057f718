import { alike, didYouMean, meantName, meantNames } from '../lib/near-names';

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

  it('names two names where two are as near, and none where more are', () => {
    const partner = ['email', 'firstName', 'lastName', 'phone', 'company', 'tier', 'referralCode'];
    expect(meantNames('name', partner)).toEqual(['firstName', 'lastName']);
    expect(didYouMean('name', partner)).toBe('did you mean firstName or lastName?');
    expect(didYouMean('open', ['email_open', 'sms_open'], (v) => JSON.stringify(v))).toBe('did you mean "email_open" or "sms_open"?');
    expect(meantNames('email', ['email_open', 'email_reply', 'email_sent'])).toEqual([]);
    expect(didYouMean('colour', partner)).toBeNull();
  });

  it('takes a date or time by another suffix, and a name with a word more', () => {
    const task = ['title', 'description', 'dueAt', 'leadId', 'opportunityId', 'assignedTo', 'type'];
    expect(meantName('dueDate', task)).toBe('dueAt');
    expect(meantName('due_date', task)).toBe('dueAt');
    expect(meantName('createdDate', ['createdAt', 'updatedAt'])).toBe('createdAt');
    expect(meantName('createdOn', ['createdAt', 'updatedAt'])).toBe('createdAt');
    // A name that merely ends in "at" or "on" is no date: `format` is not `form` at some time.
    expect(meantName('formDate', ['format'])).toBeNull();
    // A range's two ends for a moment (query parameters), but a name ending in To alone is no end.
    const tasks = ['status', 'assignedTo', 'dueFrom', 'dueTo', 'overdue'];
    expect(didYouMean('due_date', tasks)).toBe('did you mean dueFrom or dueTo?');
    expect(didYouMean('createdAfter', ['createdFrom', 'createdTo', 'q'])).toBe('did you mean createdFrom or createdTo?');
    expect(meantNames('assigned_at', tasks)).toEqual([]);
    expect(meantNames('leadConstructor', ['leadFrom', 'leadTo'])).toEqual([]);
    expect(meantName('phoneNumber', ['email', 'phone'])).toBe('phone');
    expect(meantName('emailAddress', ['email', 'phone'])).toBe('email');
    expect(meantName('companyName', ['company', 'tier'])).toBe('company');
    // A page size by other APIs' names is the limit, not the page and a word more.
    for (const name of ['pageSize', 'page_size', 'per_page', 'perPage']) expect(meantName(name, ['page', 'limit', 'sort'])).toBe('limit');
    expect(meantName('pageNumber', ['page', 'limit'])).toBe('page');
    expect(meantName('typeOfTask', ['type', 'title'])).toBe('type');
  });
});
