import { Connection, type Client, type Metadata } from '@temporalio/client';

const running = new WeakMap<Connection, number>();

/**
 * Runs `call`, which gives the Temporal calls it makes a deadline or an abort signal
 * (`withDeadline`, `withAbortSignal`), and switches the connection's call-context storage off
 * again once no such call is running.
 *
 * That storage is an AsyncLocalStorage. On Node 20, once one has run, its hook runs for every
 * promise, timer and socket the process creates from then on, on every route, also on those that
 * never talk to Temporal (about 2 % of the API's CPU per lead create in its profile). The calls
 * read their deadline when they are made, inside `call`, so nothing needs the storage after it.
 */
export async function withCallContext<T>(client: Client, call: () => Promise<T>): Promise<T> {
  const connection = client.connection;
  if (!(connection instanceof Connection)) return call();
  running.set(connection, (running.get(connection) ?? 0) + 1);
  try {
    return await call();
  } finally {
    running.set(connection, (running.get(connection) ?? 1) - 1);
    releaseCallContext(connection);
  }
}

/** Switches the storage off unless a call of withCallContext is running (after `Connection.connect`, whose check of the server ran in it). */
export function releaseCallContext(connection: Connection): void {
  if (!running.get(connection)) connection.callContextStorage.disable();
}

/**
 * A Connection whose plain calls (no deadline, no abort signal) leave the storage off. The client
 * makes each call of a namespace inside `withMetadata` (for its namespace header), which switches
 * the storage on; the call reads its metadata as it is made, before `withMetadata` returns, so the
 * storage can go off at once. Every signal of an engagement event is such a call: left on after
 * it, the storage's hooks were about 2 % of the API's CPU under events (T5-signal's profile), and
 * of every other route's too. So metadata meant for calls made after an await needs withCallContext.
 */
export class ContextReleasingConnection extends Connection {
  override withMetadata<R>(metadata: Metadata, fn: () => Promise<R>): Promise<R> {
    try {
      return super.withMetadata(metadata, fn);
    } finally {
      releaseCallContext(this);
    }
  }
}
