import { kindOf } from './zod-errors';

/**
 * Where a body is longer, a syntax error the engine reports without its position is described
 * without one: finding it costs a parse per halving of the text.
 */
const LOCATE_UP_TO = 64 * 1024;

/** What is wrong with a request body: not JSON at all (`malformed`), or JSON but not an object. */
export interface JsonBodyProblem {
  malformed: boolean;
  message: string;
}

/**
 * What is wrong with a request body that is not the JSON object the API takes, in words a caller
 * can act on: where (line and column) and what, with the usual cause when the text shows it
 * (single quotes, a trailing comma, a comment). Null when the text is a JSON object or array.
 */
export function jsonBodyProblem(text: string): JsonBodyProblem | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { malformed: true, message: describeSyntaxError(text, (err as Error).message) };
  }
  if (value !== null && typeof value === 'object') return null;
  return { malformed: false, message: `Must be a JSON object, not ${kindOf(value)}` };
}

function describeSyntaxError(text: string, engineMessage: string): string {
  if (!text.trim()) return 'Not valid JSON: the body is blank; send a JSON object';
  const at = positionOf(text, engineMessage);
  // V8 reports some of these as the token it expected at the end (`{"a":1`: expected ',' or '}').
  if (/^Unexpected end of JSON input/.test(engineMessage) || (at !== null && at >= text.trimEnd().length)) {
    return 'Not valid JSON: the body ends before its JSON does (a } or ] missing, or the body cut short)';
  }
  const where = at === null ? 'Not valid JSON' : `Not valid JSON at ${lineAndColumn(text, at)}`;
  return `${where}: ${causeAt(text, at, engineMessage)}`;
}

/** V8 names the position in most messages; for an unexpected token, the longest prefix that still parses so far gives it. */
function positionOf(text: string, engineMessage: string): number | null {
  const named = / at position (\d+)/.exec(engineMessage);
  if (named) return Number(named[1]);
  if (text.length > LOCATE_UP_TO) return null;
  // A prefix that ends before the error fails, if at all, for ending early (at its end: `-`,
  // `1.`); from the error on, it fails before its end.
  const failsEarly = (end: number) => {
    try {
      JSON.parse(text.slice(0, end));
      return false;
    } catch (err) {
      const message = (err as Error).message;
      const at = / at position (\d+)/.exec(message);
      return !/^Unexpected end of JSON input/.test(message) && (!at || Number(at[1]) < end);
    }
  };
  let [low, high] = [0, text.length];
  while (low < high) {
    const mid = (low + high) >> 1;
    if (failsEarly(mid + 1)) high = mid;
    else low = mid + 1;
  }
  return low < text.length ? low : null;
}

function lineAndColumn(text: string, at: number): string {
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  return `line ${line}, column ${at - before.lastIndexOf('\n')}`;
}

/** The mistakes people make writing JSON by hand, recognised by the character at the error and the one before it. */
function causeAt(text: string, at: number | null, engineMessage: string): string {
  const char = at === null ? '' : text[at];
  const previous = at === null ? '' : text.slice(0, at).trimEnd().slice(-1);
  if (char === "'") return 'names and strings take double quotes ("), not single ones';
  if (previous === ',' && (char === '}' || char === ']')) return `a comma before ${char}, which JSON does not allow`;
  if (char === '/') return 'JSON has no comments';
  if (/^Bad control character/.test(engineMessage)) {
    return 'a tab or line break inside a string; write it as \\t or \\n';
  }
  if (/^Unexpected non-whitespace character after JSON/.test(engineMessage)) return 'more text after the JSON value ends';
  if (/^Expected property name/.test(engineMessage) && /[A-Za-z_$]/.test(char)) return 'names take double quotes, as in {"email": ...}';
  const reason = engineMessage
    // V8 quotes the text, or (in a long one) the part near the error: `, ..."x",tru}" is not valid JSON`.
    .replace(/, .*is not valid JSON$/s, '')
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/^Unexpected token '(.*)'$/s, "unexpected '$1'");
  return reason.charAt(0).toLowerCase() + reason.slice(1);
}
