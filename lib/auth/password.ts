import argon2 from 'argon2';
import { config } from '../config';
import { ConcurrencyLimit, ConcurrencyQueueFull } from '../concurrency';
import { AppError } from '../errors';

/**
 * Every argon2 hash and verification in the process goes through one concurrency limit: argon2
 * runs on libuv's small thread pool, and a login flood would otherwise occupy all of it and stall
 * the file and crypto work of every other request.
 */
const slots = new ConcurrencyLimit(config.PASSWORD_HASH_CONCURRENCY, config.PASSWORD_HASH_QUEUE);

async function withSlot<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await slots.run(work);
  } catch (err) {
    if (!(err instanceof ConcurrencyQueueFull)) throw err;
    throw new AppError('rate_limited', 'Too many password checks in progress; retry in a few seconds', undefined, { 'Retry-After': '2' });
  }
}

export const hashPassword = (password: string) => withSlot(() => argon2.hash(password));

// Verifying against a fixed hash when no user matches keeps every failure equally slow.
let dummyHash: Promise<string> | undefined;

/** Verifies `password` against `hash`, or (no hash: unknown user) against a dummy, at the same cost. */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  const against = hash ?? (await (dummyHash ??= argon2.hash('not-a-real-password')));
  const ok = await withSlot(() => argon2.verify(against, password));
  return hash !== null && ok;
}
