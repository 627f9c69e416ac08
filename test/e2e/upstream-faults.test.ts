/**
 * Upstream faults, one case each, over chat and responses, stream and not. For every case the
 * client gets the complete answer (from the faulty target, a fallback, or a resumed stream) or
 * an explicit error, never a cut answer presented as whole and never after the deadlines; the
 * call log records what happened; and the next call to the same model is served.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Behavior } from '../mock-upstream/behavior.ts';
import { closedPort, DEMO_KEY, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';

const REPLY = 'alpha beta gamma delta epsilon zeta';
/** faults.yaml: first_token 400, idle 300, total 2500 ms. */
const FIRST_TOKEN = 400;
const IDLE = 300;
const TOTAL = 2500;
/** What the machine may add to a deadline (two cores shared with other test runs). */
const SLACK = 2000;

let mock: MockUpstream;
let gw: TestGateway;
beforeAll(async () => {
  mock = await startMockUpstream();
  gw = await startTestGateway('faults.yaml', { MOCK_URL: `${mock.url}/v1`, DEAD_URL: `http://127.0.0.1:${await closedPort()}/v1` });
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
});
beforeEach(() => {
  mock.reset();
  mock.setBehavior('healthy', { reply: REPLY });
});

/** Who gives the answer: the faulty target, the fallback, a stream resumed after its cut, or nobody. */
type Served = 'faulty' | 'fallback' | 'resumed' | 'error';

interface Fault {
  name: string;
  behavior: Behavior;
  /** The model called (default `main/faulty`, with `main/healthy` as its fallback). */
  model?: string;
  json: Served;
  stream: Served;
  /** The failed attempt as the call log must show it (`streamLogged` when a stream shows it otherwise). */
  logged: Record<string, unknown>;
  streamLogged?: Record<string, unknown>;
  /** A timeout: the faulty target is called once, never again after its deadline ran out. */
  once?: boolean;
  maxMs: number;
  minMs?: number;
}

const FAULTS: Fault[] = [
  { name: 'connection refused', behavior: {}, model: 'dead/x', json: 'fallback', stream: 'fallback', logged: { status: 0, errorCode: 'upstream_unavailable' }, maxMs: SLACK },
  { name: 'reset before headers', behavior: { resetBeforeHeaders: true }, json: 'fallback', stream: 'fallback', logged: { status: 0, errorCode: 'upstream_unavailable' }, maxMs: SLACK },
  { name: 'reset mid-answer', behavior: { cutAfterChunks: 2, chunkDelayMs: 10, reply: REPLY }, json: 'fallback', stream: 'resumed', logged: { status: 0 }, maxMs: SLACK },
  { name: 'stall before the first byte', behavior: { delayMs: 3000 }, json: 'fallback', stream: 'fallback', logged: { status: 0, errorCode: 'upstream_timeout' }, once: true, maxMs: FIRST_TOKEN + SLACK },
  { name: 'stall mid-answer', behavior: { stallAfterChunks: 2, reply: REPLY }, json: 'fallback', stream: 'resumed', logged: { status: 0, errorCode: 'upstream_timeout' }, once: true, maxMs: IDLE + SLACK },
  {
    name: 'end without finish or end marker', behavior: { truncateAfterChunks: 2, reply: REPLY }, json: 'fallback', stream: 'resumed',
    logged: { status: 502, errorCode: 'bad_upstream_response' }, streamLogged: { status: 502, errorCode: 'stream_interrupted' }, maxMs: SLACK,
  },
  { name: 'finish without end marker', behavior: { omitDone: true, reply: REPLY }, json: 'faulty', stream: 'faulty', logged: { status: 200 }, maxMs: SLACK },
  { name: '200 with an error body', behavior: { errorIn200: true }, json: 'fallback', stream: 'fallback', logged: { status: 502 }, maxMs: SLACK },
  {
    name: '200 with malformed JSON', behavior: { malformed: true }, json: 'fallback', stream: 'fallback',
    logged: { status: 502, errorCode: 'bad_upstream_response' }, streamLogged: { status: 0, errorCode: 'upstream_unavailable' }, maxMs: SLACK,
  },
  { name: 'SSE error event mid-stream', behavior: { errorEventAfterChunks: 2, reply: REPLY }, json: 'faulty', stream: 'resumed', logged: { status: 200 }, streamLogged: { status: 502 }, maxMs: SLACK },
  { name: '429 with a short Retry-After', behavior: { status: 429, retryAfter: '1', times: 1, then: { reply: REPLY } }, json: 'faulty', stream: 'faulty', logged: { status: 429 }, maxMs: 1000 + SLACK, minMs: 950 },
  { name: '503 burst then recovery', behavior: { status: 503, times: 2, then: { reply: REPLY } }, json: 'faulty', stream: 'faulty', logged: { status: 503 }, maxMs: SLACK },
  { name: 'slow trickle that never stalls', behavior: { chunkDelayMs: 150, trickleMs: 250, reply: REPLY }, json: 'faulty', stream: 'faulty', logged: { status: 200 }, maxMs: 1000 + SLACK, minMs: IDLE },
  {
    name: 'context length exceeded',
    behavior: { status: 400, errorBody: { error: { message: 'too long', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } } },
    json: 'fallback', stream: 'fallback', logged: { status: 400, errorCode: 'context_length_exceeded' }, maxMs: SLACK,
  },
  {
    name: 'a body that grows without end', behavior: { endless: true }, json: 'fallback', stream: 'error',
    // Cut at 16 MiB (reply-body.ts), or at the total deadline on a machine too busy to read that much in time.
    logged: { errorCode: expect.stringMatching(/^(bad_upstream_response|upstream_timeout)$/) },
    streamLogged: { status: 0, errorCode: 'upstream_timeout' }, once: true, maxMs: TOTAL + SLACK,
  },
];

/** The fault's 200 behaviours must answer REPLY too (a fault without a reply uses the echo). */
for (const fault of FAULTS) fault.behavior.reply ??= REPLY;

interface Result {
  status: number;
  text: string;
  complete: boolean;
  error?: { code?: string | null; message?: string };
  ms: number;
}

type Endpoint = 'chat' | 'responses';

async function call(endpoint: Endpoint, stream: boolean, model: string, fallbacks: string[]): Promise<Result> {
  const body = endpoint === 'chat' ? { model, fallbacks, stream, messages: [{ role: 'user', content: 'hello' }] } : { model, fallbacks, stream, input: 'hello' };
  const started = Date.now();
  const answer = await fetch(`${gw.url}/api/v1/${endpoint === 'chat' ? 'chat/completions' : 'responses'}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000), // a hang fails the test instead of stalling the suite
  });
  const raw = await answer.text();
  const ms = Date.now() - started;
  const result: Result = { status: answer.status, text: '', complete: false, ms };
  if (answer.status !== 200 || !stream) {
    const json = JSON.parse(raw);
    if (answer.status !== 200) return { ...result, error: json.error };
    if (endpoint === 'chat') return { ...result, text: json.choices[0].message.content, complete: json.choices[0].finish_reason === 'stop' };
    const parts = json.output.flatMap((item: { content?: Array<{ type: string; text: string }> }) => item.content ?? []);
    return { ...result, text: parts.filter((p: { type: string }) => p.type === 'output_text').map((p: { text: string }) => p.text).join(''), complete: json.status === 'completed' };
  }
  let done = false;
  let finish: string | null = null;
  for (const frame of raw.split('\n\n').filter(Boolean)) {
    const data = frame.split('\n').find((line) => line.startsWith('data: '))?.slice(6);
    if (data === undefined) continue;
    if (data === '[DONE]') {
      done = true;
      continue;
    }
    const event = JSON.parse(data);
    if (endpoint === 'chat') {
      if (event.error) result.error = event.error;
      result.text += event.choices?.[0]?.delta?.content ?? '';
      finish = event.choices?.[0]?.finish_reason ?? finish;
    } else if (event.type === 'response.output_text.delta') result.text += event.delta;
    else if (event.type === 'response.completed') result.complete = true;
    else if (event.type === 'error') result.error = event.error ?? event;
  }
  if (endpoint === 'chat') result.complete = done && finish === 'stop' && !result.error;
  return result;
}

type CallRecord = { attempts: Array<{ model: string; status: number; errorCode: string | null; kind?: string }> };

/** Run `body` with the call log captured; answers the record of the last call. */
async function logged<T>(body: () => Promise<T>): Promise<{ value: T; record?: CallRecord }> {
  const records: CallRecord[] = [];
  const services = gw.gateway.runtime.services;
  const previous = services.logs;
  services.logs = { enqueue: (record: CallRecord) => records.push(record) };
  try {
    const value = await body();
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { value, record: records.at(-1) };
  } finally {
    services.logs = previous;
  }
}

describe.each([
  ['chat', false],
  ['chat', true],
  ['responses', false],
  ['responses', true],
] as const)('upstream faults on %s (stream: %s)', (endpoint, stream) => {
  it.each(FAULTS.map((fault) => [fault.name, fault] as const))('%s', async (_name, fault) => {
    mock.setBehavior('faulty', fault.behavior);
    const model = fault.model ?? 'main/faulty';
    const { value: result, record } = await logged(() => call(endpoint, stream, model, ['main/healthy']));
    const served = stream ? fault.stream : fault.json;

    if (served === 'error') {
      expect(result.error).toMatchObject({ code: expect.any(String) });
      expect(result.complete).toBe(false);
    } else {
      expect(result.error).toBeUndefined();
      expect(result.complete).toBe(true);
      expect(result.text).toBe(REPLY); // every word, once: never a cut answer passed off as whole
    }
    expect(result.ms).toBeLessThan(fault.maxMs);
    if (fault.minMs) expect(result.ms).toBeGreaterThanOrEqual(fault.minMs);

    // The log says what happened: the fault, then who answered.
    const attempts = record?.attempts ?? [];
    expect(attempts).toContainEqual(expect.objectContaining({ model, ...((stream && fault.streamLogged) || fault.logged) }));
    if (fault.once) expect(attempts.filter((a) => a.model === model && a.status !== 200)).toHaveLength(1);
    const answered = attempts.filter((a) => a.status === 200).at(-1);
    if (served === 'faulty') expect(answered).toMatchObject({ model });
    if (served === 'fallback') expect(answered).toMatchObject({ model: 'main/healthy' });
    if (served === 'resumed') expect(answered).toMatchObject({ kind: 'resumed' });

    // The next call is served.
    mock.reset();
    mock.setBehavior('faulty', { reply: REPLY });
    if (!fault.model) {
      const next = await call(endpoint, stream, model, []);
      expect(next).toMatchObject({ complete: true, text: REPLY });
    }
  });
});
