import { AppError } from '../lib/errors';

/** A named action moves a record from one of `from` to `to`; anything else is a 409. */
export type Transitions<S extends string, A extends string> = Record<A, { from: readonly S[]; to: S }>;

/** "a", "a or b", "a, b or c". */
const either = (words: readonly string[]) => (words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : words[0]);

/** The 409 says which states the action does apply to, so the caller knows what to do first. */
export function nextState<S extends string, A extends string>(what: string, transitions: Transitions<S, A>, current: S, action: A): S {
  const move = transitions[action];
  if (!move.from.includes(current)) {
    const article = /^[aeiou]/.test(what) ? 'an' : 'a';
    throw new AppError('conflict', `Cannot ${action} ${article} ${what} that is ${current} (only one that is ${either(move.from)})`);
  }
  return move.to;
}
