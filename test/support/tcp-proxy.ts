import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './free-port';

/** A loopback TCP relay to a real server that a test can cut off (connections refused) and bring back. */
export interface TcpProxy {
  /** `http://127.0.0.1:<port>`: the target's URL as seen through the relay. */
  endpoint: string;
  /** Stops listening and drops the open connections: clients get ECONNREFUSED, as from a server that is down. */
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a relay to `target` (`http://host:port`). */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const srv = createServer((client) => {
        const upstream = createConnection({ host: hostname, port: Number(targetPort) });
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => resolve());
      server = srv;
    });
  const stop = async () => {
    const srv = server;
    server = null;
    for (const s of sockets) s.destroy();
    if (srv) await new Promise<void>((resolve) => srv.close(() => resolve()));
  };
  await listen();
  return { endpoint: `http://127.0.0.1:${port}`, cut: stop, restore: listen, close: stop };
}
