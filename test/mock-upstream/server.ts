/**
 * A small scriptable upstream for development, tests and the bench. It speaks every wire format
 * the gateway sends (compat `/chat/completions`, vendor_b `/v1/messages`, vendor_c
 * `:generateContent` / `:streamGenerateContent?alt=sse` / `:countTokens`, vendor_d `/openai/deployments/…`),
 * checks each format's auth header, answers JSON or SSE (and embeddings, see embeddings.ts; moderations), is scriptable per model (status,
 * delays, cut or stalled streams) and records every request it receives.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { behaviorFromModel, type Behavior } from './behavior.ts';
import type { Format } from './format.ts';
import { compatFormat, continuesPrefix, deploymentFormat } from './format-openai.ts';
import { generateFormat } from './format-generate.ts';
import { countMessagesTokens, messagesFormat } from './format-messages.ts';
import { MOCK_STREAM_ERROR, sendBrokenStream, sendJsonAnswer } from './faults.ts';
import { countTokens, piecesOf, planAnswer } from './plan.ts';
import { embeddingAnswer, embeddingInputs, matchEmbeddingRoute } from './embeddings.ts';

export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** Which wire format the request used (`compat`, `vendor_b`, `vendor_c`, `vendor_d`). */
  format?: string;
  /** The model, from the body or (vendor_c, vendor_d) the path. */
  model?: string;
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

const FORMATS: Format[] = [deploymentFormat, messagesFormat, generateFormat, compatFormat];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export async function startMockUpstream(options: { port?: number; host?: string } = {}): Promise<MockUpstream> {
  const behaviors = new Map<string, Behavior>();
  const requests: ReceivedRequest[] = [];
  let counter = 0;

  function behaviorFor(model: string): Behavior {
    const set = behaviors.get(model);
    if (!set) return behaviorFromModel(model);
    if (set.times !== undefined) {
      if (set.times <= 0) return set.then ?? behaviorFromModel(model);
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
      return sendJson(res, 400, { error: { message: 'bad json', type: 'invalid_request_error', param: null, code: null } });
    }
    const url = new URL(req.url ?? '/', 'http://mock');
    const record: ReceivedRequest = { path: req.url ?? '', headers: req.headers, body, aborted: false };
    requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });
    const embedding = req.method === 'POST' ? matchEmbeddingRoute(url.pathname) : undefined;
    if (embedding) {
      record.format = embedding.format.name;
      const authProblem = embedding.format.checkAuth(req.headers, url);
      if (authProblem) return sendJson(res, 401, embedding.format.errorBody(401, authProblem));
      const inputs = embeddingInputs(embedding, body);
      record.model = inputs.model;
      const behavior = behaviorFor(inputs.model);
      if (behavior.delayMs) await sleep(behavior.delayMs);
      if (res.destroyed) return;
      if (behavior.status && behavior.status >= 400) {
        return sendJson(res, behavior.status, behavior.errorBody ?? embedding.format.errorBody(behavior.status, `mock failure ${behavior.status}`));
      }
      return sendJson(res, 200, embeddingAnswer(embedding, inputs));
    }
    if (req.method === 'POST' && url.pathname.endsWith('/moderations')) {
      // OpenAI's moderations: flagged when the input speaks of violence (a fixed word list).
      record.format = 'compat';
      record.model = String(body.model ?? '');
      const authProblem = compatFormat.checkAuth(req.headers, url);
      if (authProblem) return sendJson(res, 401, compatFormat.errorBody(401, authProblem));
      const behavior = behaviorFor(record.model);
      if (behavior.delayMs) await sleep(behavior.delayMs);
      if (behavior.status && behavior.status >= 400) return sendJson(res, behavior.status, compatFormat.errorBody(behavior.status, `mock failure ${behavior.status}`));
      const inputs: string[] = Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? '')];
      const results = inputs.map((input) => {
        const violent = /\b(?:kill|attack|violence)\b/i.test(input);
        return { flagged: violent, categories: { violence: violent, hate: false }, category_scores: { violence: violent ? 0.98 : 0.01, hate: 0.01 } };
      });
      return sendJson(res, 200, { id: `modr-mock${++counter}`, model: record.model, results });
    }
    const counted = /\/v1beta\/models\/([^/:]+):countTokens$/.exec(url.pathname);
    if (counted && req.method === 'POST') {
      // generateContent's countTokens: the words of every text part, the mock's token.
      record.format = generateFormat.name;
      record.model = decodeURIComponent(counted[1]);
      const authProblem = generateFormat.checkAuth(req.headers, url);
      if (authProblem) return sendJson(res, 401, generateFormat.errorBody(401, authProblem));
      const contents: any[] = body.contents ?? body.generateContentRequest?.contents ?? [];
      const text = contents.flatMap((c) => c.parts ?? []).map((p: any) => p.text ?? '').join(' ');
      return sendJson(res, 200, { totalTokens: countTokens(text) });
    }
    if (req.method === 'POST' && url.pathname.endsWith('/v1/messages/count_tokens')) {
      record.format = 'vendor_b';
      record.model = String(body.model ?? '');
      const authProblem = messagesFormat.checkAuth(req.headers, url);
      if (authProblem) return sendJson(res, 401, messagesFormat.errorBody(401, authProblem));
      return sendJson(res, 200, { input_tokens: countMessagesTokens(body) });
    }
    let format: Format | undefined;
    let pathModel: string | null | undefined;
    for (const candidate of FORMATS) {
      pathModel = candidate.match(url.pathname);
      if (pathModel !== undefined) {
        format = candidate;
        break;
      }
    }
    if (req.method !== 'POST' || !format) {
      return sendJson(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error', param: null, code: null } });
    }
    record.format = format.name;
    const authProblem = format.checkAuth(req.headers, url);
    if (authProblem) return sendJson(res, 401, format.errorBody(401, authProblem));
    const request = format.normalize(body, url, pathModel ? decodeURIComponent(pathModel) : null);
    record.model = request.model;
    const behavior = behaviorFor(request.model);
    if (behavior.resetBeforeHeaders) return void req.socket.destroy();
    if (behavior.delayMs) await sleep(behavior.delayMs);
    if (res.destroyed) return;
    if (behavior.status && behavior.status >= 400) {
      const headers: Record<string, string> = {};
      // generateContent puts the wait in the body (RetryInfo); the others in the header.
      if (behavior.retryAfter && format !== generateFormat) headers['retry-after'] = behavior.retryAfter;
      const error = behavior.errorBody ?? format.errorBody(behavior.status, `mock failure ${behavior.status}`, behavior.retryAfter);
      return sendJson(res, behavior.status, error, headers);
    }
    if (behavior.maxTokensError && body.max_tokens !== undefined) return sendJson(res, 400, behavior.maxTokensError);
    if (request.prefix !== undefined && behavior.refusePrefix) {
      return sendJson(res, 400, format.errorBody(400, 'This model does not continue a final assistant message.'));
    }
    if (request.prefix !== undefined && format === compatFormat && !continuesPrefix(body, behavior)) request.prefix = undefined;
    const id = `chatcmpl-mock${++counter}`;
    const plan = planAnswer(request, behavior, counter);
    if (!request.stream) return sendJsonAnswer(res, format.json(plan, request, id), behavior);
    if (sendBrokenStream(res, behavior)) return;

    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const send = (event: string | null, data: unknown) =>
      res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    const writer = format.writer(send, request, plan, id, body);
    writer.start();
    if (behavior.endless) {
      // Content chunk after content chunk, never a finish: only the gateway's deadline ends it.
      while (!res.destroyed) {
        writer.text('more ');
        await sleep(1);
      }
      return;
    }
    const pieces = plan.toolCall ? [null] : piecesOf(plan.text);
    for (const [index, piece] of pieces.entries()) {
      if (behavior.chunkDelayMs) await sleep(behavior.chunkDelayMs);
      if (res.destroyed) return;
      if (behavior.cutAfterChunks !== undefined && index >= behavior.cutAfterChunks) {
        await sleep(20); // let the chunks already written reach the client before the cut
        res.destroy();
        return;
      }
      if (behavior.stallAfterChunks !== undefined && index >= behavior.stallAfterChunks) return; // hold the socket open
      if (behavior.truncateAfterChunks !== undefined && index >= behavior.truncateAfterChunks) return void res.end();
      if (behavior.errorEventAfterChunks !== undefined && index >= behavior.errorEventAfterChunks) {
        send(null, MOCK_STREAM_ERROR);
        return void res.end();
      }
      if (piece === null) writer.tool(plan.toolCall!);
      else writer.text(piece);
    }
    if (behavior.cutBeforeFinish) {
      await sleep(20);
      res.destroy();
      return;
    }
    writer.finish(plan.toolCall ? 'tool_calls' : (plan.finish ?? 'stop'));
    if (behavior.holdAfterFinish) return; // finished, but neither end marker nor close
    if (!behavior.omitDone) writer.end();
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
