/**
 * HTTP to upstreams over undici keep-alive pools. One Agent per connect-timeout value, shared by
 * every provider, so connections stay warm across config reloads.
 */
import { Agent, request } from 'undici';

export interface UpstreamCall {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** An AbortSignal or an EventEmitter emitting 'abort' (undici takes either). */
  signal: AbortSignal | import('node:events').EventEmitter;
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
}

export function createTransport(): Transport {
  const agents = new Map<number, Agent>();
  const agentFor = (connectTimeout: number) => {
    let agent = agents.get(connectTimeout);
    if (!agent) {
      agent = new Agent({ connect: { timeout: connectTimeout }, keepAliveTimeout: 30_000, connections: 256, pipelining: 1 });
      agents.set(connectTimeout, agent);
    }
    return agent;
  };
  return {
    async send(call) {
      const reply = await request(call.url, {
        method: 'POST',
        headers: call.headers,
        body: call.body,
        signal: call.signal,
        dispatcher: agentFor(call.connectTimeoutMs),
        headersTimeout: call.headersTimeoutMs,
        bodyTimeout: call.idleTimeoutMs,
      });
      return { status: reply.statusCode, headers: reply.headers, body: reply.body as unknown as UpstreamReply['body'] };
    },
    async close() {
      await Promise.all([...agents.values()].map((agent) => agent.close()));
      agents.clear();
    },
  };
}
