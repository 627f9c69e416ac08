/**
 * Upstream connections opened before the gateway says it is ready (issue 37). Without them the
 * first requests of a fresh process each open a connection of their own (a TCP and, to a real
 * provider, a TLS handshake: round trips on the request's clock, and a burst of connects on the
 * event loop while the load's first second queues behind it).
 *
 * A connector that undici's pools call for every new connection: it hands out a connection
 * opened ahead for that origin while one is left, else opens one as undici would. The ones
 * opened ahead are bare connections, no request is sent on them; one the upstream closes, or
 * that nobody took within `ttlMs`, is dropped.
 */
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';

type Connector = buildConnector.connector;
type ConnectOptions = buildConnector.Options;

/** How long a connection opened ahead waits to be taken before it is closed. */
export const WARM_SOCKET_TTL_MS = 20_000;

export interface WarmConnector {
  /** For undici's `connect` option. */
  connect: Connector;
  /** Opens `count` connections to `origin` ahead; resolves with how many opened (never rejects). */
  open(origin: string, count: number): Promise<number>;
  /** How many connections to `origin` wait to be taken. */
  waiting(origin: string): number;
  /** Closes the connections not taken. */
  close(): void;
}

/** `https://[::1]:8443` and undici's connect options name an origin alike: `https://[::1]:8443`. */
const originKey = (protocol: string, host: string) => `${protocol}//${host}`;

export function warmConnector(base: Connector, ttlMs = WARM_SOCKET_TTL_MS): WarmConnector {
  /** Per origin, the connections opened ahead and not taken yet, each with its 'close' listener. */
  const ready = new Map<string, Map<Socket, () => void>>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  const drop = (key: string, socket: Socket) => {
    const sockets = ready.get(key);
    const onClose = sockets?.get(socket);
    if (!sockets || !onClose) return false;
    socket.off('close', onClose);
    sockets.delete(socket);
    if (sockets.size === 0) ready.delete(key);
    return true;
  };
  const take = (key: string): Socket | undefined => {
    for (const socket of [...(ready.get(key)?.keys() ?? [])]) {
      drop(key, socket);
      // Bytes from an upstream that was asked nothing (a 408 before it closes) would be read as the answer.
      if (!socket.destroyed && socket.readyState === 'open' && socket.readableLength === 0) return socket;
      socket.destroy();
    }
    return undefined;
  };
  const connect: Connector = (options, callback) => {
    const socket = options.httpSocket ? undefined : take(originKey(options.protocol, options.host ?? `${options.hostname}:${options.port}`));
    if (!socket) return base(options, callback);
    // Never from within the call: undici's client is still in the middle of its resume then, and
    // a connection handed over at once would sit idle with the request queued behind it.
    queueMicrotask(() => (socket.destroyed ? base(options, callback) : callback(null, socket)));
  };
  /** Still connecting: closed with the rest rather than left to their connect timeout. */
  const connecting = new Set<Socket>();
  const openOne = (key: string, options: ConnectOptions, batch: Socket[]) =>
    new Promise<boolean>((resolve) => {
      let pending: Socket | undefined;
      const onPendingClose = () => {
        if (pending) connecting.delete(pending);
        resolve(false);
      };
      // undici's connector returns the socket it opens (its types say nothing).
      pending = base(options, (error, socket) => {
        if (pending) connecting.delete(pending.off('close', onPendingClose));
        if (error || !socket) return resolve(false);
        if (closed) {
          socket.destroy();
          return resolve(false);
        }
        const onClose = () => drop(key, socket);
        socket.once('close', onClose);
        ready.set(key, (ready.get(key) ?? new Map()).set(socket, onClose));
        batch.push(socket);
        resolve(true);
      }) as unknown as Socket | undefined;
      if (pending && !pending.destroyed) connecting.add(pending.once('close', onPendingClose));
    });
  return {
    connect,
    async open(origin, count) {
      if (closed || count <= 0) return 0;
      const url = new URL(origin);
      const key = originKey(url.protocol, url.host);
      // undici hands its connector IPv6 addresses without their brackets.
      const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      const options: ConnectOptions = { protocol: url.protocol, host: url.host, hostname, port: url.port };
      const batch: Socket[] = [];
      const timer = setTimeout(() => {
        timers.delete(timer);
        for (const socket of batch) if (drop(key, socket)) socket.destroy();
      }, ttlMs).unref();
      timers.add(timer);
      const opened = await Promise.all(Array.from({ length: count }, () => openOne(key, options, batch)));
      return opened.filter(Boolean).length;
    },
    waiting: (origin) => {
      const url = new URL(origin);
      return ready.get(originKey(url.protocol, url.host))?.size ?? 0;
    },
    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of connecting) socket.destroy();
      for (const [key, sockets] of [...ready]) for (const socket of [...sockets.keys()]) if (drop(key, socket)) socket.destroy();
    },
  };
}
