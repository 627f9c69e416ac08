import { describe, expect, it } from 'vitest';
import { createTestContext } from '../../pipeline/test-context.ts';
import { GatewayError } from '../../kernel/errors.ts';
import type { ChatChunk } from '../../providers/openai-types.ts';
import { piiScanner } from './checks/pii.ts';
import { secretsScanner } from './checks/secrets.ts';
import { guardChunks } from './stream.ts';
import type { Guardrail } from './types.ts';

const silent = { info() {}, warn() {}, error() {} };
const WINDOW = { hold_back_chars: 16, max_hold_chars: 4096 };

const guardrail = (action: Guardrail['action'], check = piiScanner(['email', 'card'], [])): Guardrail => ({ name: 'pii', type: 'pii', stages: new Set(['output']), action, check });

function chunk(content: string | null, finish: ChatChunk['choices'][0]['finish_reason'] = null): ChatChunk {
  return { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }] };
}

async function* upstream(pieces: string[]): AsyncGenerator<ChatChunk[]> {
  for (const piece of pieces) yield [chunk(piece)];
  yield [chunk(null, 'stop')];
}

/** What the client receives, chunk by chunk (the text each carried). */
async function run(pieces: string[], guardrails: Guardrail[], window = WINDOW) {
  const ctx = createTestContext({ stream: true });
  const sent: string[] = [];
  let error: unknown;
  try {
    for await (const batch of guardChunks(ctx, upstream(pieces), guardrails, window, silent)) {
      for (const c of batch) sent.push(c.choices.map((choice) => choice.delta.content ?? '').join(''));
    }
  } catch (thrown) {
    error = thrown;
  }
  return { sent, text: sent.join(''), error, ctx };
}

describe('output guardrails on a stream', () => {
  it('redacts an email split across three chunks: no part of it leaves', async () => {
    const { sent, text, ctx } = await run(['Write to ann.l', 'ee@exam', 'ple.com please, she answers fast.'], [guardrail('redact')]);
    expect(text).toBe('Write to [EMAIL] please, she answers fast.');
    for (const piece of sent) expect(piece).not.toMatch(/ann|exam|ple\.com/);
    expect(ctx.outcome.guardrails).toEqual([{ guardrail: 'pii', check: 'pii', stage: 'output', action: 'redact', result: 'redacted', categories: ['email'] }]);
    expect(ctx.outcome.text).toBe(text); // the log keeps what the client saw
  });

  it('holds a match that straddles the hold-back window until it is whole', async () => {
    // The card starts well before the window's edge and ends after it, across chunks.
    const pieces = ['Card number: 4111 ', '1111 1111 ', '1111 was used for the order placed yesterday evening.'];
    const { sent, text } = await run(pieces, [guardrail('redact')], { hold_back_chars: 8, max_hold_chars: 4096 });
    expect(text).toBe('Card number: [CARD] was used for the order placed yesterday evening.');
    expect(sent.some((piece) => /4111/.test(piece))).toBe(false);
  });

  it('sends text early once it is past the window (the stream is not buffered whole)', async () => {
    const long = 'word '.repeat(40);
    const { sent } = await run([long, long, 'end'], [guardrail('redact')]);
    expect(sent[0]!.length).toBeGreaterThan(150); // the first chunk left before the stream ended
  });

  it('blocks mid-stream with guardrail_blocked, the matched text never sent nor named', async () => {
    const { text, error, ctx } = await run(['Sure: my card is 4111 1111 ', '1111 1111 and more text after it to pass the window.'], [guardrail('block')]);
    expect(GatewayError.is(error) && error.code).toBe('guardrail_blocked');
    expect((error as Error).message).not.toMatch(/4111/);
    expect(text).not.toMatch(/4111/);
    expect(ctx.outcome.guardrails?.[0]).toMatchObject({ result: 'blocked', categories: ['card'] });
  });

  it('flags without changing the text', async () => {
    const { text, ctx } = await run(['mail ann@example.com now'], [guardrail('flag')]);
    expect(text).toBe('mail ann@example.com now');
    expect(ctx.outcome.guardrails?.[0]).toMatchObject({ result: 'flagged', categories: ['email'] });
  });

  it('holds a private key block across many chunks until its END line', async () => {
    const block = ['-----BEGIN PRIVATE KEY-----\n', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n', 'BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n', '-----END PRIVATE KEY-----', ' done, and some words after it.'];
    const keys: Guardrail = { name: 'keys', type: 'secrets', stages: new Set(['output']), action: 'redact', check: secretsScanner(['private_key']) };
    const { sent, text } = await run(['Here it is: ', ...block], [keys], { hold_back_chars: 4, max_hold_chars: 4096 });
    expect(text).toBe('Here it is: [PRIVATE_KEY] done, and some words after it.');
    expect(sent.some((piece) => piece.includes('MIIE') || piece.includes('BEGIN'))).toBe(false);
  });

  it('checks a judge on the whole answer before the finish chunk leaves', async () => {
    const judge: Guardrail = { name: 'json', type: 'json', stages: new Set(['output']), action: 'block', check: { kind: 'judge', judge: (text) => ({ categories: text.startsWith('{') ? [] : ['invalid_json'] }) } };
    const ok = await run(['{"a":', '1}'], [judge]);
    expect(ok.error).toBeUndefined();
    expect(ok.text).toBe('{"a":1}');
    const bad = await run(['not', ' json'], [judge]);
    expect(GatewayError.is(bad.error) && bad.error.message).toMatch(/guardrail 'json' \(invalid_json\)/);
  });
});
