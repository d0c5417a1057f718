import { createServer } from 'node:net';

/** A port nobody listens on right now (the OS picks it), for servers a test starts and restarts. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.once('error', reject);
  });
}
