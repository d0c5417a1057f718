import { Connection, type Client } from '@temporalio/client';

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
    const left = (running.get(connection) ?? 1) - 1;
    running.set(connection, left);
    if (left === 0) connection.callContextStorage.disable();
  }
}

/** After `Connection.connect`, whose check of the server ran in the storage. */
export function releaseCallContext(connection: Connection): void {
  if (!running.get(connection)) connection.callContextStorage.disable();
}
