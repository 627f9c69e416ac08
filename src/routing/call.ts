/**
 * One attempt at one target: send the translated request and either parse the whole answer or
 * open the stream far enough to see the first content token (late commit), so that a failure
 * before it can still fall over invisibly.
 *
 * Allocation shapes on this path are chosen for Node 20's V8, where some shapes created per
 * request kept request data alive through young-generation GCs (measured in bench/README.md:
 * ~1.4 MB per scavenge at 500 streams/s): the deadline is a class, not an object literal with a
 * getter and closures; the transport call names its fields instead of spreading the built
 * request; the rest of a stream is a module-level generator, not one declared per call; and the
 * per-attempt copies (timeouts.ts, the request body) use Object.assign, not a spread.
 */
import { TranslatorOf } from '../providers/stream-translator.ts';
import { EventEmitter } from 'node:events';
import type { ClientSignal } from '../http/client-signal.ts';
import type { ChatChunk, ChatCompletion, ChatRequest } from '../providers/openai-types.ts';
import { decodeSse } from '../providers/sse.ts';
import { BodyTooLargeError } from '../providers/reply-body.ts';
import type { StopSignal, Transport, UpstreamReply } from '../providers/transport.ts';
import type { ProviderAdapter, StreamTranslator, Target, UpstreamRequest } from '../providers/types.ts';
import type { EmbeddingsRequest, EmbeddingsResponse } from '../providers/embeddings-types.ts';
import { UpstreamStreamError, type SseEvent } from '../providers/types.ts';
import { AttemptError, httpAttemptError, networkAttemptError, parseRetryAfter } from './attempt-error.ts';
import type { Timeouts } from '../config/types.ts';
import { serviceUnavailable } from '../kernel/errors.ts';
import type { AttemptTrace, RequestTrace } from '../pipeline/tracing.ts';
import { defaultMaxTokensFor } from './fit.ts';
import { attachNativeAnswer, attachNativeError, keepNativeEvents, nativeFor, nativeRequestOf } from '../providers/native.ts';

export interface AttemptInput {
  request: ChatRequest;
  target: Target;
  adapter: ProviderAdapter;
  transport: Transport;
  timeouts: Timeouts;
  /** The client's signal: its abort cancels the upstream call at every stage. */
  signal: ClientSignal;
  /** The request's trace when tracing is on (src/pipeline/tracing.ts): each call sent has its span. */
  trace?: RequestTrace | null;
  /**
   * Told once the first token has come, the moment a hedged race is decided and the time to first
   * token is measured. For a JSON answer that is its whole body, parsed: its headers say nothing
   * of the answer (an upstream may send them at once and then stall), and the body is what the
   * client waits for.
   */
  onFirstToken?: () => void;
}

/**
 * An opened stream: the chunks read before the commit point, then the rest, in batches (the
 * chunks one upstream read carried, never empty).
 */
export interface OpenStream {
  head: ChatChunk[];
  rest: AsyncGenerator<ChatChunk[]>;
  translator: StreamTranslator;
  /** Abort the upstream call (client gone, or the gateway gives up). */
  abort(): void;
}

/**
 * The abort handle undici gets for one attempt. An EventEmitter (undici accepts one) instead of
 * an AbortController: no transferable AbortSignal or DOMException per attempt on the hot path.
 */
class AttemptSignal extends EventEmitter {
  aborted = false;
  readonly reason = ATTEMPT_ABORTED;
  abort() {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}

/** One shared reason: creating an Error per abort would capture (and source-map) a stack each time. */
const ATTEMPT_ABORTED = Object.freeze(Object.assign(new Error('upstream call aborted by the gateway'), { code: 'UND_ERR_ABORTED' }));

type DeadlineReason = 'client' | 'first_token' | 'total' | 'shutdown';

const ONCE = { once: true };
const fireTimer = (deadline: Deadline, why: DeadlineReason) => deadline.fire(why);

/** Deadline bookkeeping for one attempt: the reason the attempt's signal fired. */
class Deadline {
  readonly signal = new AttemptSignal();
  reason: DeadlineReason | null = null;
  /** The client hanging up aborts the attempt; also handed out as the stream's abort handle. */
  readonly abort = () => this.fire('client');
  /** The gateway stopped waiting for its requests at shutdown (the transport's drain deadline). */
  private readonly stop = () => this.fire('shutdown');
  private readonly client: ClientSignal;
  private readonly stopping: StopSignal | undefined;
  private readonly total: NodeJS.Timeout;
  private firstToken: NodeJS.Timeout | undefined;

  constructor(client: ClientSignal, totalMs: number, stopping: StopSignal | undefined) {
    this.client = client;
    this.stopping = stopping;
    if (client.aborted) this.fire('client');
    else client.addEventListener('abort', this.abort, ONCE);
    if (stopping?.stopped) this.fire('shutdown');
    else stopping?.on('stop', this.stop); // not once(): no wrapper per attempt; fire() runs once anyway
    this.total = setTimeout(fireTimer, totalMs, this, 'total');
  }

  fire(why: DeadlineReason) {
    if (this.signal.aborted) return;
    this.reason = why;
    this.signal.abort();
  }

  armFirstToken(ms: number) {
    this.firstToken = setTimeout(fireTimer, ms, this, 'first_token');
  }

  clearFirstToken() {
    clearTimeout(this.firstToken);
  }

  dispose() {
    clearTimeout(this.total);
    clearTimeout(this.firstToken);
    this.client.removeEventListener('abort', this.abort);
    this.stopping?.off('stop', this.stop);
  }
}

/** The code of the one GatewayError a call made can end in: the drain deadline's. */
export const SHUTTING_DOWN = 'server_shutting_down';

/** What a request still waiting on its upstream at the drain deadline gets (mid-stream: the last event). */
const shuttingDown = () =>
  serviceUnavailable('The gateway is shutting down and ended this request before the upstream finished; retry it.', SHUTTING_DOWN);

function classify(error: unknown, timer: Deadline): unknown {
  // Not an upstream verdict: no fallback or resume, no breaker count; the client is told why.
  if (timer.reason === 'shutdown') return shuttingDown();
  if (error instanceof AttemptError) return error;
  if (timer.reason === 'client') return error; // the caller is gone: nothing to classify
  if (error instanceof UpstreamStreamError) return httpAttemptError({ ...error.info, status: error.info.status || 502 });
  const code = (error as { code?: string })?.code ?? '';
  const timedOut =
    timer.reason === 'first_token' || timer.reason === 'total' || code.includes('TIMEOUT') || code === 'UND_ERR_CONNECT_TIMEOUT';
  return networkAttemptError(error, timedOut, timer.reason ?? (code.includes('BODY') ? 'idle' : 'connect'));
}

async function send(input: AttemptInput, built: UpstreamRequest, timer: Deadline, trace: AttemptTrace | undefined) {
  const { adapter, timeouts } = input;
  if (trace) Object.assign(built.headers, trace.headers);
  const reply = await input.transport.send({
    url: built.url,
    headers: built.headers,
    body: built.body,
    signal: timer.signal,
    connectTimeoutMs: timeouts.connect,
    headersTimeoutMs: timeouts.first_token,
    idleTimeoutMs: timeouts.idle,
  });
  if (reply.status >= 400) {
    const text = await reply.body.text().catch(() => '');
    const info = adapter.parseError(reply.status, text) as ReturnType<ProviderAdapter['parseError']> & { retryAfterMs?: number };
    // The header wins; some formats (generateContent's RetryInfo) put the wait in the body instead.
    const error = httpAttemptError(info, parseRetryAfter(reply.headers['retry-after']) ?? info.retryAfterMs);
    // A client of this wire format gets the upstream's own error answer (src/providers/native.ts).
    if (nativeFor(input.request, adapter.type)) attachNativeError(error, { status: reply.status, body: text, headers: dialectHeaders(reply.headers) });
    throw error;
  }
  return reply;
}

/** The headers of an upstream error answer a client of its format relies on (when and whether to retry). */
function dialectHeaders(headers: UpstreamReply['headers']): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of ['retry-after', 'x-should-retry']) {
    const value = headers[name];
    if (value !== undefined) kept[name] = Array.isArray(value) ? value[0]! : String(value);
  }
  return kept;
}

/** A 200 whose body is no JSON answer (cut, garbled, or endless): the upstream failed, say so. */
async function readJson(body: UpstreamReply['body']): Promise<unknown> {
  try {
    return await body.json();
  } catch (error) {
    const tooLarge = error instanceof BodyTooLargeError;
    if (!tooLarge && !(error instanceof SyntaxError)) throw error;
    const message = tooLarge ? error.message : 'The upstream answered 200 with a body that is not JSON.';
    const info = { status: 502, message, type: 'upstream_error', code: 'bad_upstream_response', param: null };
    // A body that grew without end took its time: try the next target, not this one again.
    throw tooLarge ? new AttemptError(message, info, false, true) : httpAttemptError(info);
  }
}

/**
 * The request translated for this target, before any deadline starts. A refusal here (a
 * GatewayError: a parameter this wire format cannot honour) is thrown as it is, never classified
 * as an upstream failure: no upstream was called (try-targets.ts passes to the next target).
 */
function buildFor({ adapter, request, target }: AttemptInput, stream: boolean): UpstreamRequest {
  // A native body holding what the chat translation cannot carry goes to its own format only.
  const refusal = nativeRequestOf(request)?.refusal;
  if (refusal && !nativeFor(request, adapter.type)) throw refusal;
  const required = adapter.requiresMaxTokens === true;
  const defaultMaxTokens = defaultMaxTokensFor(request, target, required);
  // A configured default reaches a format that takes the request's own limit as that limit.
  if (defaultMaxTokens !== undefined && !required) return adapter.buildRequest(Object.assign({}, request, { max_tokens: defaultMaxTokens }), target, { stream });
  return adapter.buildRequest(request, target, { stream, defaultMaxTokens });
}

/** Non-stream attempt: the whole answer, translated. */
export async function callJson(input: AttemptInput): Promise<ChatCompletion> {
  const built = buildFor(input, false);
  const timer = new Deadline(input.signal, input.timeouts.total, input.transport.stopping);
  const trace = input.trace?.beginAttempt(input.target, input.signal);
  try {
    timer.armFirstToken(input.timeouts.first_token);
    const reply = await send(input, built, timer, trace);
    // The answer has begun: from here the idle and total deadlines govern a slow body (a hedge
    // still may start beside it until the whole answer is in).
    timer.clearFirstToken();
    const body = await readJson(reply.body);
    trace?.answered(body); // before the adapter renames its model to the client's, in place
    const completion = input.adapter.parseResponse(body, input.target);
    if (nativeFor(input.request, input.adapter.type)) attachNativeAnswer(completion, body, input.adapter.type);
    trace?.used(completion.usage);
    input.onFirstToken?.();
    return completion;
  } catch (error) {
    throw classify(error, timer);
  } finally {
    timer.dispose();
  }
}

/**
 * Embeddings attempt: the whole answer, translated to float vectors. The route step has kept
 * only targets whose format has embeddings; the request is the embeddings body.
 */
export async function callEmbeddings(input: AttemptInput): Promise<EmbeddingsResponse> {
  const wire = input.adapter.embeddings!;
  const request = input.request as unknown as EmbeddingsRequest;
  const built = wire.buildRequest(request, input.target); // a refusal is no upstream failure (see buildFor)
  const timer = new Deadline(input.signal, input.timeouts.total, input.transport.stopping);
  const trace = input.trace?.beginAttempt(input.target, input.signal);
  try {
    timer.armFirstToken(input.timeouts.first_token);
    const reply = await send(input, built, timer, trace);
    timer.clearFirstToken();
    const body = await readJson(reply.body);
    trace?.answered(body);
    const answer = wire.parseResponse(body, request, input.target);
    trace?.used(answer.usage);
    return answer;
  } catch (error) {
    throw classify(error, timer);
  } finally {
    timer.dispose();
  }
}

const hasContent = (chunk: ChatChunk) =>
  chunk.choices.some(
    (choice) => choice.finish_reason || choice.delta?.content || choice.delta?.tool_calls?.length || choice.delta?.reasoning_content,
  );

/** Stream attempt: resolves once the first content token (or the finish) has arrived. */
export async function openStream(input: AttemptInput): Promise<OpenStream> {
  const built = buildFor(input, true);
  const timer = new Deadline(input.signal, input.timeouts.total, input.transport.stopping);
  const trace = input.trace?.beginAttempt(input.target, input.signal);
  const adapted = input.adapter.createStreamTranslator(input.target, { includeUsage: true });
  // Only for a native request: chat clients pay nothing per event.
  const translator = nativeFor(input.request, input.adapter.type) ? keepNativeEvents(adapted) : adapted;
  timer.armFirstToken(input.timeouts.first_token);
  let source: AsyncGenerator<ChatChunk[]>;
  try {
    const reply = await send(input, built, timer, trace);
    source = translate(decodeSse(reply.body), trace ? tracingFirstEvent(translator, trace) : translator);
  } catch (error) {
    timer.dispose();
    throw classify(error, timer);
  }
  const head: ChatChunk[] = [];
  try {
    // The whole batch that brought the first content joins the head: it has been read already.
    for (;;) {
      const next = await source.next();
      if (next.done) break;
      head.push(...next.value);
      if (next.value.some(hasContent)) break;
    }
  } catch (error) {
    timer.dispose();
    await source.return(undefined).catch(() => {});
    throw classify(error, timer);
  }
  timer.clearFirstToken();
  if (!head.some(hasContent) && !translator.done) {
    timer.dispose();
    throw networkAttemptError(new Error('stream ended before any content'), false);
  }
  trace?.streams();
  input.onFirstToken?.();
  return { head, rest: restOf(source, timer), translator, abort: timer.abort };
}

/**
 * The translator, first showing the attempt's span the upstream's first event, which names the
 * model that answers before the adapter renames it to the client's. Only for traced calls.
 */
function tracingFirstEvent(translator: StreamTranslator, trace: AttemptTrace): StreamTranslator {
  let first = true;
  return new TranslatorOf((event) => {
    if (first) {
      first = false;
      trace.firstEvent(event.data);
    }
    return translator.push(event);
  }, () => translator.done);
}

/** The chunks after the head (a module-level generator: see the note at the top). */
async function* restOf(source: AsyncGenerator<ChatChunk[]>, timer: Deadline): AsyncGenerator<ChatChunk[]> {
  try {
    for (;;) {
      const next = await source.next();
      if (next.done) return;
      yield next.value;
    }
  } catch (error) {
    throw classify(error, timer);
  } finally {
    timer.dispose();
    await source.return(undefined).catch(() => {});
  }
}

/** Each batch of events as the batch of chunks it translates to (batches left empty are skipped). */
async function* translate(batches: AsyncIterable<SseEvent[]>, translator: StreamTranslator): AsyncGenerator<ChatChunk[]> {
  for await (const events of batches) {
    const chunks: ChatChunk[] = [];
    for (const event of events) {
      // After the end marker, read on to the end of the body instead of breaking off: leaving
      // early destroys the upstream response, which costs its keep-alive connection.
      if (translator.done) break;
      try {
        for (const chunk of translator.push(event)) chunks.push(chunk);
      } catch (error) {
        // What came before the failing event still reaches the client, ahead of the error.
        if (chunks.length) yield chunks;
        throw error;
      }
    }
    if (chunks.length) yield chunks;
  }
}
