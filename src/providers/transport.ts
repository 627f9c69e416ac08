/**
 * HTTP to upstreams over undici keep-alive pools. One Agent per connect-timeout value, shared by
 * every provider, so connections stay warm across config reloads.
 *
 * Calls go through `Agent.dispatch` with a small handler rather than `undici.request`: the
 * reply body is a ReplyBody fed straight from the socket instead of a Readable stream with
 * its promise machinery, which took about a third of a bare proxy's time per call.
 */
import { EventEmitter } from 'node:events';
import type { Agent, Dispatcher } from 'undici';
// The Agent alone, not undici's index: that loads fetch, WebSocket, caches and the rest besides,
// ~5 MiB resident the gateway never uses (bench/README.md, issue 18).
import UndiciAgent from 'undici/lib/dispatcher/agent.js';
import buildConnector from 'undici/lib/core/connect.js';
import { ReplyBody } from './reply-body.ts';
import { warmConnector, type WarmConnector } from './warm-sockets.ts';

export interface UpstreamCall {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Emits 'abort' once the call is to stop; its `reason` is the error the call fails with. */
  signal: CallSignal;
  connectTimeoutMs: number;
  /** Until response headers arrive. */
  headersTimeoutMs: number;
  /** Longest silence between body chunks. */
  idleTimeoutMs: number;
}

export interface UpstreamReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Uint8Array> & { text(): Promise<string>; json(): Promise<unknown>; destroy(error?: Error): void };
}

export interface Transport {
  send(call: UpstreamCall): Promise<UpstreamReply>;
  close(): Promise<void>;
  /**
   * Emits 'stop' once when the gateway gives up waiting for the calls in flight (the drain
   * deadline at shutdown): every attempt still running then ends, and any later one at once.
   */
  readonly stopping?: StopSignal;
  /**
   * Opens `count` connections to `origin` ahead of the first call there (the start: see
   * warm-sockets.ts), for calls with this connect timeout; resolves with how many opened.
   */
  preconnect?(origin: string, connectTimeoutMs: number, count: number): Promise<number>;
}

/** The transport's stop, as attempts (routing/call.ts) see it. */
export interface StopSignal extends Pick<EventEmitter, 'on' | 'off'> {
  readonly stopped: boolean;
}

/** The attempt's abort handle (routing/call.ts): an EventEmitter, no AbortSignal per call. */
export interface CallSignal extends Pick<EventEmitter, 'once' | 'off'> {
  readonly aborted: boolean;
  readonly reason: unknown;
}

/** `https://host:port/base/path?q` → origin and path, without a URL object per call. */
export function splitUrl(url: string): { origin: string; path: string } {
  const scheme = url.indexOf('://');
  const slash = url.indexOf('/', scheme + 3);
  const query = url.indexOf('?', scheme + 3);
  const cut = slash === -1 ? query : query === -1 ? slash : Math.min(slash, query);
  if (cut === -1) return { origin: url, path: '/' };
  const path = url.slice(cut);
  return { origin: url.slice(0, cut), path: path.startsWith('/') ? path : `/${path}` };
}

function abortReason(signal: CallSignal): Error {
  const reason = signal.reason;
  return reason instanceof Error ? reason : new Error('upstream call aborted');
}

/** One call: resolves with status and headers, then feeds the reply body as it arrives. */
function dispatch(agent: Agent, call: UpstreamCall): Promise<UpstreamReply> {
  return new Promise((resolve, reject) => {
    const signal = call.signal;
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    let controller: Dispatcher.DispatchController | undefined;
    let body: ReplyBody | undefined;
    let settled = false;
    const onAbort = () => {
      const reason = abortReason(signal);
      if (controller && !controller.aborted) controller.abort(reason);
      else if (!controller && !settled) {
        // Still queued for a connection: the handler aborts as soon as undici starts it.
        settled = true;
        reject(reason);
      }
    };
    const unlisten = () => signal.off('abort', onAbort);
    signal.once('abort', onAbort);

    const { origin, path } = splitUrl(call.url);
    agent.dispatch(
      {
        origin,
        path,
        method: 'POST',
        headers: call.headers,
        body: call.body,
        headersTimeout: call.headersTimeoutMs,
        bodyTimeout: call.idleTimeoutMs,
      },
      {
        onRequestStart(started) {
          controller = started;
          if (signal.aborted) started.abort(abortReason(signal));
        },
        onResponseStart(started, status, headers) {
          if (status < 200 || settled) return; // 1xx informational, or a call given up already
          settled = true;
          body = new ReplyBody(started);
          resolve({ status, headers: headers as UpstreamReply['headers'], body });
        },
        onResponseData(_controller, chunk) {
          body?.push(chunk);
        },
        onResponseEnd() {
          unlisten();
          body?.end();
        },
        onResponseError(_controller, error) {
          unlisten();
          if (body) body.fail(error);
          else if (!settled) {
            settled = true;
            reject(error);
          }
        },
      },
    );
  });
}

class Stopping extends EventEmitter implements StopSignal {
  stopped = false;
  constructor() {
    super();
    this.setMaxListeners(0); // one listener per attempt in flight
  }
  stop() {
    if (this.stopped) return;
    this.stopped = true;
    this.emit('stop');
  }
}

export function createTransport(): Transport & { stop(): void } {
  const stopping = new Stopping();
  const agents = new Map<number, { agent: Agent; connector: WarmConnector }>();
  const agentFor = (connectTimeout: number) => {
    let entry = agents.get(connectTimeout);
    if (!entry) {
      // The connector undici would build from `connect: { timeout }`, behind the one that hands out warm connections.
      const connector = warmConnector(buildConnector({ timeout: connectTimeout }));
      const agent = new UndiciAgent({ connect: connector.connect, keepAliveTimeout: 30_000, connections: 256, pipelining: 1 });
      entry = { agent, connector };
      agents.set(connectTimeout, entry);
    }
    return entry;
  };
  return {
    send: (call) => dispatch(agentFor(call.connectTimeoutMs).agent, call),
    stopping,
    /** Ends the attempts in flight and any later one (the drain deadline has passed). */
    stop: () => stopping.stop(),
    preconnect: (origin, connectTimeoutMs, count) => agentFor(connectTimeoutMs).connector.open(origin, count),
    async close() {
      for (const { connector } of agents.values()) connector.close();
      await Promise.all([...agents.values()].map(({ agent }) => agent.close()));
      agents.clear();
    },
  };
}
