/**
 * The upstream a starting gateway rehearses against (src/boot/rehearsal.ts): an OpenAI-compatible
 * `/chat/completions` on 127.0.0.1, in process, answering at once with a whole answer or a short
 * stream (content events, the finish, the usage, `[DONE]`) in the shapes OpenAI sends.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RehearsalUpstream {
  /** The base URL to configure as a compat provider's endpoint. */
  url: string;
  close(): Promise<void>;
}

const WORDS = ['The', ' gateway', ' is', ' warming', ' up', ' before', ' it', ' says', ' it', ' is', ' ready', '.'];
// OpenAI's answers as recorded (shared/fixtures/upstreams/openai-chat): the keys, their order and
// the nulls real calls parse, so that what V8 learns here holds for them.
const USAGE = {
  prompt_tokens: 12,
  completion_tokens: WORDS.length,
  total_tokens: 12 + WORDS.length,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};
const ID = 'chatcmpl-rehearsal';
const FINGERPRINT = 'fp_rehearsal';

/** A stream event: the gateway always asks for the usage, so each event has `usage` (null until the last) and OpenAI's padding. */
function chunk(model: string, delta: object | null, finish: string | null, usage: object | null = null) {
  const choices = delta ? [{ index: 0, delta, logprobs: null, finish_reason: finish }] : [];
  return { id: ID, object: 'chat.completion.chunk', created: 0, model, service_tier: 'default', system_fingerprint: FINGERPRINT, choices, usage, obfuscation: 'padding' };
}

function answer(req: IncomingMessage, res: ServerResponse, text: string) {
  let body: { model?: string; stream?: boolean } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // answered as a plain request below
  }
  const model = body.model ?? 'rehearsal';
  if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
    res.writeHead(404).end();
    return;
  }
  if (!body.stream) {
    const message = { role: 'assistant', content: WORDS.join(''), refusal: null, annotations: [] };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      id: ID, object: 'chat.completion', created: 0, model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: 'stop' }],
      usage: USAGE, service_tier: 'default', system_fingerprint: FINGERPRINT,
    }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const events = [chunk(model, { role: 'assistant', content: '', refusal: null }, null), ...WORDS.map((word) => chunk(model, { content: word }, null))];
  events.push(chunk(model, {}, 'stop'), chunk(model, null, null, USAGE));
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end('data: [DONE]\n\n');
}

export async function startRehearsalUpstream(): Promise<RehearsalUpstream> {
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (text += piece));
    req.on('end', () => answer(req, res, text));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
