import { AppError } from '../lib/errors';

/** A named action moves a record from one of `from` to `to`; anything else is a 409. */
export type Transitions<S extends string, A extends string> = Record<A, { from: readonly S[]; to: S }>;

export function nextState<S extends string, A extends string>(what: string, transitions: Transitions<S, A>, current: S, action: A): S {
  const move = transitions[action];
  if (!move.from.includes(current))
    throw new AppError('conflict', `Cannot ${action} ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what} that is ${current}`);
  return move.to;
}
