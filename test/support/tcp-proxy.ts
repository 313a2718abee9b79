import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './processes.js';

/**
 * A TCP proxy in front of a shared server (Redis, PostgreSQL) that a test can take down and bring
 * back without touching the server itself: `close()` stops listening and drops every live
 * connection, as an outage would; `open()` listens again on the same port.
 */
export interface TcpProxy {
  port: number;
  /** The target URL with its host and port replaced by the proxy's. */
  url(target: string): string;
  open(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const proxy: TcpProxy = {
    port,
    url(target) {
      const url = new URL(target);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    async open() {
      if (server) return;
      server = createServer((client) => {
        const upstream = createConnection({ port: targetPort, host: targetHost });
        track(client);
        track(upstream);
        client.pipe(upstream).pipe(client);
        const drop = () => {
          client.destroy();
          upstream.destroy();
        };
        client.on('error', drop);
        upstream.on('error', drop);
        client.on('close', drop);
        upstream.on('close', drop);
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, '127.0.0.1', () => resolve());
      });
    },
    async close() {
      const closing = server;
      server = undefined;
      if (!closing) return;
      const closed = new Promise<void>((resolve) => closing.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
  await proxy.open();
  return proxy;
}
