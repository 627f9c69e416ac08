/**
 * A small OpenAI-compatible upstream for development, tests and the bench: answers
 * `POST …/chat/completions` (JSON or SSE), scriptable per model (status, delays, cut or
 * stalled streams), and records every request it receives.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { behaviorFromModel, type Behavior } from './behavior.ts';

export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** The client (the gateway) closed the connection before the answer ended. */
  aborted: boolean;
}

export interface MockUpstream {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  setBehavior(model: string, behavior: Behavior): void;
  reset(): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function lastUserText(body: any): string {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) return m.content.filter((p: any) => p.type === 'text').map((p: any) => p.text).join(' ');
  }
  return '';
}

/** Rough token count: words, enough for usage figures that add up. */
const countTokens = (text: string) => (text.trim() ? text.trim().split(/\s+/).length : 0);

export async function startMockUpstream(options: { port?: number; host?: string } = {}): Promise<MockUpstream> {
  const behaviors = new Map<string, Behavior>();
  const requests: ReceivedRequest[] = [];
  let counter = 0;

  function behaviorFor(model: string): Behavior {
    const set = behaviors.get(model);
    if (!set) return behaviorFromModel(model);
    if (set.times !== undefined) {
      if (set.times <= 0) return behaviorFromModel(model);
      set.times--;
    }
    return set;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: any = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'bad json', type: 'invalid_request_error', param: null, code: null } }));
      return;
    }
    const record: ReceivedRequest = { path: req.url ?? '', headers: req.headers, body, aborted: false };
    requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });
    if (req.method !== 'POST' || !/\/chat\/completions(\?|$)/.test(req.url ?? '')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error', param: null, code: null } }));
      return;
    }
    const behavior = behaviorFor(String(body.model ?? ''));
    if (behavior.delayMs) await sleep(behavior.delayMs);
    if (res.destroyed) return;
    if (behavior.status && behavior.status >= 400) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (behavior.retryAfter) headers['retry-after'] = behavior.retryAfter;
      res.writeHead(behavior.status, headers);
      res.end(JSON.stringify(behavior.errorBody ?? { error: { message: `mock failure ${behavior.status}`, type: 'server_error', param: null, code: null } }));
      return;
    }
    const id = `chatcmpl-mock${++counter}`;
    const created = Math.floor(Date.now() / 1000);
    const text = behavior.reply ?? `Echo: ${lastUserText(body)}`;
    const usage = { prompt_tokens: countTokens(lastUserText(body)), completion_tokens: countTokens(text), total_tokens: 0 };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id, object: 'chat.completion', created, model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage, system_fingerprint: 'fp_mock',
      }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const send = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
    const chunk = (delta: object, finish: string | null = null) => ({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: body.stream_options?.include_usage ? null : undefined });
    send(chunk({ role: 'assistant', content: '', refusal: null }));
    const words = text.split(/(?<= )/);
    for (const [index, word] of words.entries()) {
      if (behavior.chunkDelayMs) await sleep(behavior.chunkDelayMs);
      if (res.destroyed) return;
      if (behavior.cutAfterChunks !== undefined && index >= behavior.cutAfterChunks) {
        res.destroy();
        return;
      }
      if (behavior.stallAfterChunks !== undefined && index >= behavior.stallAfterChunks) return; // hold the socket open
      send(chunk({ content: word }));
    }
    send(chunk({}, 'stop'));
    if (body.stream_options?.include_usage) send({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage });
    if (!behavior.omitDone) res.write('data: [DONE]\n\n');
    res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setBehavior: (model, behavior) => behaviors.set(model, { ...behavior }),
    reset() {
      behaviors.clear();
      requests.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
