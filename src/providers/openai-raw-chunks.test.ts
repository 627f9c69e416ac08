import { describe, expect, it } from 'vitest';
import { chatRenderer } from '../pipeline/render.ts';
import { observeChunks } from '../pipeline/observe-chunks.ts';
import { createTestContext } from '../pipeline/test-context.ts';
import type { Renderer } from '../pipeline/context-types.ts';
import { createOpenAITranslator } from './openai.ts';
import { rawJsonOf } from '../pipeline/raw-json.ts';
import type { ChatChunk } from './openai-types.ts';
import { fixtureText, makeTarget } from './shared-fixtures.ts';
import { parseSseText } from './sse.ts';
import { UpstreamStreamError } from './types.ts';

const target = makeTarget({}, 'gpt-4o-mini-2024-07-18', 'client-model');
const frame = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1764380000, model: 'gpt-4o-mini-2024-07-18', system_fingerprint: 'fp_1' };
const choice = (delta: object, finish: string | null = null) => [{ index: 0, delta, logprobs: null, finish_reason: finish }];
const sse = (events: unknown[]) => events.map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`).join('');

/** An OpenAI-shaped stream (the shape of OpenAI's own chunks, written here), with `extra` after usage. */
function openaiStream(words: string[], extra: Record<string, unknown> = {}, usageKey = true): string {
  const usage = usageKey ? { usage: null } : {};
  return sse([
    { ...frame, choices: choice({ role: 'assistant', content: '', refusal: null }), ...usage, ...extra },
    ...words.map((word) => ({ ...frame, choices: choice({ content: word }), ...usage, ...extra })),
    { ...frame, choices: choice({}, 'stop'), ...usage, ...extra },
    { ...frame, choices: [], usage: { prompt_tokens: 5, completion_tokens: words.length, total_tokens: 5 + words.length }, ...extra },
    '[DONE]',
  ]);
}

/** What the gateway parsed before raw reading: each event through JSON.parse, as the translator did. */
function parsedChunks(text: string): ChatChunk[] {
  const chunks: ChatChunk[] = [];
  for (const { data } of parseSseText(text)) {
    if (data === '[DONE]') break;
    const chunk = JSON.parse(data) as ChatChunk;
    if (chunk.choices.length === 0 && !chunk.usage) continue;
    chunk.model = target.requestedAs;
    chunks.push(chunk);
  }
  return chunks;
}

function translated(text: string): ChatChunk[] {
  const translator = createOpenAITranslator(target);
  return parseSseText(text).flatMap((event) => translator.push(event));
}

/** The client's body for these chunks, through the observer and the chat renderer. */
async function rendered(chunks: ChatChunk[], includeUsage: boolean, renderer: Renderer = chatRenderer): Promise<string> {
  const ctx = createTestContext({ stream: true, stream_options: { include_usage: includeUsage } });
  ctx.renderer = renderer;
  async function* batches() {
    yield chunks.slice(0, 3); // batches as upstream reads bring them
    yield chunks.slice(3);
  }
  return renderer.stream(ctx, observeChunks(ctx, batches()), () => {}).text();
}

const STREAMS: Record<string, string> = {
  'OpenAI-shaped, usage null on every chunk': openaiStream(['Hello', ' there', ',', ' friend', '.']),
  'OpenAI-shaped, with obfuscation padding': openaiStream(['Hi', ' again'], { obfuscation: 'abcDEF12' }),
  'OpenAI-shaped, no usage key': openaiStream(['one', ' two'], {}, false),
  'escapes, quotes, emoji and non-ASCII': openaiStream(['a "quoted" word', ' line\nbreak', ' \\ slash', ' café', ' 👋', ' \u2028', ' é']),
  'a frame that is not written as JSON.stringify writes it': openaiStream(['x']).replaceAll('"created":', '"created": '),
  'recorded: Azure OpenAI (vendor_d), keys in another order': fixtureText('azure-openai/chat.stream.sse.txt'),
};

describe('raw chunks: compat events read without JSON.parse', () => {
  for (const [name, text] of Object.entries(STREAMS)) {
    it(`gives the chunks JSON.parse gives, and the client the same bytes: ${name}`, async () => {
      const chunks = translated(text);
      expect(JSON.stringify(chunks)).toBe(JSON.stringify(parsedChunks(text))); // keys in the same order too
      for (const includeUsage of [true, false]) {
        expect(await rendered(translated(text), includeUsage)).toBe(await rendered(parsedChunks(text), includeUsage));
      }
    });
  }

  it('reads the common events of an OpenAI-shaped stream as text, the first and the usage chunk parsed', () => {
    const raw = translated(STREAMS['OpenAI-shaped, with obfuscation padding']!).map((chunk) => rawJsonOf(chunk) !== undefined);
    expect(raw).toEqual([false, true, true, true, false]);
  });

  it('reads a stream whose model keeps its name as JSON.parse does (the client text is the upstream text)', async () => {
    const unrenamed = makeTarget({}, frame.model, frame.model);
    const text = STREAMS['OpenAI-shaped, usage null on every chunk']!;
    const translator = createOpenAITranslator(unrenamed);
    const chunks = parseSseText(text).flatMap((event) => translator.push(event));
    const parsed = parseSseText(text)
      .filter(({ data }) => data !== '[DONE]')
      .map(({ data }) => JSON.parse(data) as ChatChunk)
      .filter((chunk) => chunk.choices.length > 0 || chunk.usage);
    expect(JSON.stringify(chunks)).toBe(JSON.stringify(parsed));
    expect(chunks.map((chunk) => rawJsonOf(chunk) !== undefined)).toEqual([false, true, true, true, true, true, true, false]);
    for (const includeUsage of [true, false]) expect(await rendered(chunks, includeUsage)).toBe(await rendered(parsed, includeUsage));
  });

  it('parses every event of a stream whose frame is written another way', () => {
    for (const name of ['recorded: Azure OpenAI (vendor_d), keys in another order', 'a frame that is not written as JSON.stringify writes it']) {
      expect(translated(STREAMS[name]!).some((chunk) => rawJsonOf(chunk) !== undefined)).toBe(false);
    }
  });

  it('parses content with escapes or surrogates, reading the plain pieces around them', () => {
    const chunks = translated(openaiStream(['plain', ' "quoted"', ' 👋', ' plain']));
    expect(chunks.map((chunk) => rawJsonOf(chunk) !== undefined)).toEqual([false, true, false, false, true, true, false]);
  });

  it('still ends with the upstream error event that follows raw-read chunks', () => {
    const text = sse([
      { ...frame, choices: choice({ role: 'assistant', content: '' }), usage: null },
      { ...frame, choices: choice({ content: 'Hi' }), usage: null },
      { error: { message: 'overloaded', type: 'server_error', code: null, param: null } },
    ]);
    const translator = createOpenAITranslator(target);
    const [first, second, error] = parseSseText(text);
    translator.push(first!);
    expect(rawJsonOf(translator.push(second!)[0]!)).toBeDefined();
    expect(() => translator.push(error!)).toThrow(UpstreamStreamError);
  });

  it('falls back to serialising a chunk the relay changed after reading', () => {
    const [, chunk] = translated(STREAMS['OpenAI-shaped, usage null on every chunk']!);
    const json = rawJsonOf(chunk!);
    expect(json).toBe(JSON.stringify(chunk));
    chunk!.choices[0]!.delta.content = 'lo'; // a resume's overlap spliced off
    expect(rawJsonOf(chunk!)).toBeUndefined();
    const [, other] = translated(STREAMS['OpenAI-shaped, usage null on every chunk']!);
    other!.id = 'chatcmpl-other'; // a resumed leg framed as the first
    expect(rawJsonOf(other!)).toBeUndefined();
    const [, third] = translated(STREAMS['OpenAI-shaped, usage null on every chunk']!);
    third!.usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }; // carried usage
    expect(rawJsonOf(third!)).toBeUndefined();
  });

  it('is not used when a step wrapped the renderer (it may change chunks in ways the renderer cannot see)', async () => {
    const chunks = translated(STREAMS['OpenAI-shaped, usage null on every chunk']!);
    for (const chunk of chunks) chunk.added = true;
    const wrapped: Renderer = { ...chatRenderer, stream: (ctx, source, abort) => chatRenderer.stream(ctx, source, abort) };
    const body = await rendered(chunks, false, wrapped);
    expect(body.split('\n\n').filter((event) => event.startsWith('data: {')).every((event) => event.includes('"added":true'))).toBe(true);
  });
});
