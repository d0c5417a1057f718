import { jsonBodyProblem } from '../lib/json-syntax';

const malformed = (text: string) => {
  const problem = jsonBodyProblem(text);
  expect(problem?.malformed).toBe(true);
  return problem!.message;
};

describe('a request body that is not a JSON object, in words', () => {
  it('says where the JSON breaks, by line and column, and the usual cause when the text shows it', () => {
    expect(malformed('{"email":"x@example.com", "firstName":"A",}')).toBe(
      'Not valid JSON at line 1, column 43: a comma before }, which JSON does not allow',
    );
    expect(malformed('{\n  "tags": [1, 2,\n]}')).toBe('Not valid JSON at line 3, column 1: a comma before ], which JSON does not allow');
    expect(malformed("{'email':'x'}")).toBe(
      'Not valid JSON at line 1, column 2: names and strings take double quotes ("), not single ones',
    );
    expect(malformed('{"email":\'x\'}')).toBe(
      'Not valid JSON at line 1, column 10: names and strings take double quotes ("), not single ones',
    );
    expect(malformed('{email: "x"}')).toBe('Not valid JSON at line 1, column 2: names take double quotes, as in {"email": ...}');
    expect(malformed('{\n  "email": "x" // mine\n}')).toBe('Not valid JSON at line 2, column 16: JSON has no comments');
    expect(malformed('{"note":"a\tb"}')).toBe(
      'Not valid JSON at line 1, column 11: a tab or line break inside a string; write it as \\t or \\n',
    );
    expect(malformed('{"a":1}{"b":2}')).toBe('Not valid JSON at line 1, column 8: more text after the JSON value ends');
  });

  it('finds the position V8 leaves out of an unexpected token', () => {
    expect(malformed('{"active":tru}')).toBe("Not valid JSON at line 1, column 14: unexpected '}'");
    expect(malformed('{"score":NaN}')).toBe("Not valid JSON at line 1, column 10: unexpected 'N'");
    expect(malformed('hello')).toBe("Not valid JSON at line 1, column 1: unexpected 'h'");
    // A prefix ending in `-` fails at its end, which is not where the text breaks.
    expect(malformed('{"a":-1,"b":tru}')).toBe("Not valid JSON at line 1, column 16: unexpected '}'");
  });

  it('tells a body cut short or blank from one that breaks inside', () => {
    const cutShort = 'Not valid JSON: the body ends before its JSON does (a } or ] missing, or the body cut short)';
    expect(malformed('{"email": ')).toBe(cutShort);
    expect(malformed('{"a":1')).toBe(cutShort);
    expect(malformed('[1, 2')).toBe(cutShort);
    expect(malformed('  \n')).toBe('Not valid JSON: the body is blank; send a JSON object');
  });

  it('names what a valid JSON body that is not an object is, and has nothing to say of an object or array', () => {
    expect(jsonBodyProblem('42')).toEqual({ malformed: false, message: 'Must be a JSON object, not a number' });
    expect(jsonBodyProblem('"lead"')).toEqual({ malformed: false, message: 'Must be a JSON object, not a string' });
    expect(jsonBodyProblem('null')).toEqual({ malformed: false, message: 'Must be a JSON object, not null' });
    expect(jsonBodyProblem('{"a":1}')).toBeNull();
    expect(jsonBodyProblem('[1]')).toBeNull();
  });

  it('leaves the position out of a long body rather than parse it over and over', () => {
    const long = `{"a":"${'x'.repeat(70 * 1024)}","b":tru}`;
    expect(malformed(long)).toBe("Not valid JSON: unexpected '}'");
  });
});
