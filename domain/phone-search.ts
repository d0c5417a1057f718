/**
 * A query looked up as a phone number (docs/decisions.md, "Search"). Two numbers match when one
 * ends with the other and they share at least PHONE_MATCH_DIGITS digits, compared without
 * punctuation, a `(0)` trunk digit or leading zeros: so a number written with its country code
 * (`+44 20 7946 0958`, `0044 ...`), without it (`20 7946 0958`) or in national form with a trunk
 * zero (`020 7946 0958`) finds the same lead, whichever way the lead's phone was written.
 */

/** Fewer digits would match too many numbers by their end (and read as a year, a zip code, an amount). */
export const PHONE_MATCH_DIGITS = 7;

/** Written only with what a phone number is written with (as the phone field accepts it). */
const PHONE_LIKE = /^\+?[\d\s()./-]+$/;

/**
 * The digits a query is compared by as a phone number, or null when it is no phone number. The
 * same rule as the documents' phone keys (SQL function search_phone_key) and as GET /v1/leads?q=.
 */
export function phoneQueryDigits(q: string): string | null {
  const text = q.trim();
  if (!PHONE_LIKE.test(text)) return null;
  const digits = text.replaceAll('(0)', '').replace(/\D/g, '').replace(/^0+/, '');
  return digits.length >= PHONE_MATCH_DIGITS ? digits : null;
}

/** A phone number in a query: its text as written, its digits (phoneQueryDigits) and where it starts. */
export interface PhoneInQuery {
  text: string;
  digits: string;
  index: number;
}

/** A run of phone characters inside a query, from its first digit (or `+`) to its last digit. */
const PHONE_RUN = /\+?\d[\d\s()./-]*\d/g;

/**
 * The phone numbers written inside a query among other words (`Ada 020 7946 0958`): each run of
 * phone characters that phoneQueryDigits takes as a number, with its text as written. A query
 * that is only a number is one such run.
 */
export function phoneNumbersIn(q: string): PhoneInQuery[] {
  return [...q.matchAll(PHONE_RUN)].flatMap(({ 0: text, index }) => {
    const digits = phoneQueryDigits(text);
    return digits ? [{ text, digits, index }] : [];
  });
}

/**
 * A query as its phone numbers (phoneNumbersIn) and the text around them: `Anna +49 30 1234567`
 * is the number `+49 30 1234567` and the words `Anna`. The words are the runs between the numbers
 * that hold a letter or digit, without the spaces and punctuation at their ends (the `(` of
 * `(030) 1234567`); a query without a number is its one run, as it is. Search (its words as terms)
 * and GET /v1/leads?q= (each run a substring) look a number among words up alike: as its words or
 * as a phone, ANDed with the words.
 */
export function splitPhoneNumbers(q: string): { numbers: PhoneInQuery[]; words: string[] } {
  const numbers = phoneNumbersIn(q);
  if (!numbers.length) return { numbers, words: [q] };
  const ends = [0, ...numbers.map((n) => n.index + n.text.length)];
  const words = [...numbers.map((n, i) => q.slice(ends[i], n.index)), q.slice(ends[numbers.length])]
    .map((run) => run.replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, ''))
    .filter((run) => /[\p{L}\p{N}]/u.test(run));
  return { numbers, words };
}

/**
 * The tsquery of phone keys matching `digits`. A key is `#` and a phone's digits reversed, so the
 * phone ends with the query when the key starts with the reversed query (a prefix term), and the
 * query ends with the phone when the key is one of the reversed query's beginnings (exact terms,
 * from PHONE_MATCH_DIGITS digits on). Digits need no quoting.
 */
export function phoneKeyQuery(digits: string): string {
  const reversed = [...digits].reverse().join('');
  const terms = [`'#${reversed}':*`];
  for (let n = PHONE_MATCH_DIGITS; n < reversed.length; n++) terms.push(`'#${reversed.slice(0, n)}'`);
  return terms.join(' | ');
}
