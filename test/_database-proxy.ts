/**
 * e2e helper: PostgreSQL (DATABASE_URL) behind a TCP proxy the test stops and starts again, so a
 * real gateway process sees the database go away and come back.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A TCP proxy in front of PostgreSQL: `stop()` closes it and cuts every connection, `start()` opens
 * it again on its port; `blackhole()` cuts the connections and holds new ones open, never answering.
 */
export function databaseProxy() {
  const target = new URL(DATABASE_URL);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  let silent = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  };
  return {
    url() {
      const url = new URL(DATABASE_URL);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.href;
    },
    async start() {
      silent = false;
      server = createServer((client) => {
        track(client);
        if (silent) return;
        const upstream = connect(Number(target.port || 5432), target.hostname);
        track(upstream);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((ok, fail) => server!.once('error', fail).listen(port, '127.0.0.1', ok));
      port = (server.address() as { port: number }).port;
    },
    blackhole() {
      silent = true;
      for (const socket of sockets) socket.destroy();
    },
    async stop() {
      const closed = new Promise<void>((ok) => server!.close(() => ok()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
