/**
 * The faults the shipped settings must rescue without tuning (rescue.yaml writes no timeout and
 * no hedge setting): a first token after 20 s and an upstream that never answers, both answered
 * by a healthy fallback through a hedge, and a JSON answer whose headers come but whose body
 * stalls (its "first token" is the whole body); hedges that both answer (one answer, one bill); a
 * deployment whose latency doubles (lowest_latency moves the traffic); a long outage (probes are
 * single calls, the primary comes back within 30 s). Compat and generateContent, streamed and not.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sample } from '../prometheus-sample.ts';
import { DEMO_KEY, startMockUpstream, startTestGateway, waitForLogRecord, type MockUpstream, type TestGateway } from '../_setup.ts';

let mock: MockUpstream;
let gw: TestGateway;
beforeAll(async () => {
  mock = await startMockUpstream();
  gw = await startTestGateway('rescue.yaml', { MOCK_URL: `${mock.url}/v1`, MOCK_BASE: mock.url });
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

interface Answer {
  status: number;
  id: string;
  model: string;
  text: string;
  usage: { prompt_tokens: number; completion_tokens: number };
  ms: number;
}

/** One chat call, streamed or not, read whole. */
async function chat(model: string, stream: boolean, fallbacks: string[] = [], content = 'hello there'): Promise<Answer> {
  const started = Date.now();
  const res = await fetch(`${gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, fallbacks, stream, messages: [{ role: 'user', content }], ...(stream ? { stream_options: { include_usage: true } } : {}) }),
  });
  const raw = await res.text();
  const id = res.headers.get('x-request-id') ?? '';
  if (!stream || res.status !== 200) {
    const body = JSON.parse(raw);
    return { status: res.status, id, model: body.model, text: body.choices?.[0]?.message?.content ?? '', usage: body.usage, ms: Date.now() - started };
  }
  let text = '';
  let usage: Answer['usage'] | undefined;
  let served = '';
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6));
    served ||= chunk.model;
    text += chunk.choices?.[0]?.delta?.content ?? '';
    usage = chunk.usage ?? usage;
  }
  return { status: res.status, id, model: served, text, usage: usage!, ms: Date.now() - started };
}

const FORMATS = [
  { name: 'compat', provider: 'main', prefix: '', healthy: 'main/healthy' },
  { name: 'generateContent', provider: 'gen', prefix: 'g', healthy: 'gen/ghealthy' },
] as const;
const CASES = FORMATS.flatMap((format) => [true, false].map((stream) => ({ ...format, stream, mode: stream ? 'stream' : 'json' })));
const attemptsOf = (record: any) => record.attempts.map((a: any) => ({ model: a.model, status: a.status, error_code: a.error_code, kind: a.kind }));

async function scrape(): Promise<string> {
  return (await fetch(`${gw.url}/metrics`)).text();
}

describe('with the shipped settings', () => {
  it('answers a first token due after 20 s from the healthy fallback within 15 s, billed once, both attempts logged', async () => {
    const results = await Promise.all(
      CASES.map(async (c) => {
        const upstream = `${c.prefix}late-${c.mode}`;
        // Streamed: the headers at once, the first token after 20 s; not streamed: the first byte after 20 s.
        mock.setBehavior(upstream, c.stream ? { chunkDelayMs: 20_000 } : { delayMs: 20_000 });
        return { c, upstream, answer: await chat(`${c.provider}/${upstream}`, c.stream, [c.healthy]) };
      }),
    );
    for (const { c, upstream, answer } of results) {
      expect(answer.status, c.name).toBe(200);
      expect(answer.model).toBe(c.healthy);
      expect(answer.text).toBe('Echo: hello there');
      expect(answer.ms).toBeLessThan(15_000);
      const record = await waitForLogRecord(gw, answer.id);
      expect(attemptsOf(record)).toEqual([
        { model: `${c.provider}/${upstream}`, status: null, error_code: 'hedge_cancelled', kind: 'first' },
        { model: c.healthy, status: 200, error_code: null, kind: 'hedged' },
      ]);
      // Billed once: the answer's own usage, not the cancelled call's.
      expect(record).toMatchObject({ request_tokens: answer.usage.prompt_tokens, response_tokens: answer.usage.completion_tokens, billed: true });
    }
    // The slow calls were cancelled upstream, not left running.
    await expect.poll(() => mock.requests.filter((r) => r.model?.includes('late-')).every((r) => r.aborted)).toBe(true);
    const metrics = await scrape();
    expect(sample(metrics, 'gateway_hedges_total', { model: 'main/late-stream' })).toBe(1);
    expect(sample(metrics, 'gateway_hedge_wins_total', { model: 'main/late-stream' })).toBe(1);
    expect(sample(metrics, 'gateway_hedge_tokens_total', { model: 'main/late-stream' })).toBeGreaterThan(0);
    // A cancelled call is no upstream error.
    expect(sample(metrics, 'gateway_upstream_errors_total', { provider: 'main', status: '0' })).toBe(0);
  });

  it('answers from the fallback within 30 s when the upstream accepts the call and never answers; without one, a learned deadline gives up in seconds', async () => {
    // A deployment that streams its first token at once, learned from 20 calls: its deadline drops
    // from the configured 90 s to the 10 s floor.
    for (let i = 0; i < 20; i++) expect((await chat('main/silent-learned', true)).status).toBe(200);
    const from = mock.requests.length;
    const learned = (async () => {
      mock.setBehavior('silent-learned', { delayMs: 600_000 });
      return chat('main/silent-learned', true);
    })();
    const results = await Promise.all(
      CASES.map(async (c) => {
        const upstream = `${c.prefix}silent-${c.mode}`;
        mock.setBehavior(upstream, { delayMs: 600_000 });
        return { c, answer: await chat(`${c.provider}/${upstream}`, c.stream, [c.healthy]) };
      }),
    );
    for (const { c, answer } of results) {
      expect(answer.status, c.name).toBe(200);
      expect(answer.model).toBe(c.healthy);
      expect(answer.ms).toBeLessThan(30_000);
    }
    const alone = await learned;
    expect(alone.status).toBe(503);
    expect(alone.ms).toBeLessThan(30_000);
    const record = await waitForLogRecord(gw, alone.id);
    expect(attemptsOf(record)).toEqual([{ model: 'main/silent-learned', status: null, error_code: 'upstream_timeout', kind: 'first' }]);
    const silent = mock.requests.slice(from).filter((r) => r.model?.includes('silent-'));
    expect(silent).toHaveLength(5);
    await expect.poll(() => silent.every((r) => r.aborted)).toBe(true);
  });

  it('answers from the fallback through a hedge when a JSON upstream sends its headers and then stalls its body', async () => {
    const results = await Promise.all(
      FORMATS.map(async (f) => {
        const upstream = `${f.prefix}stall-json`;
        // The headers and the first third of the body at once, then nothing: only `idle` (30 s)
        // would end the call, and no first-token deadline applies once the headers are in.
        mock.setBehavior(upstream, { stallAfterChunks: 1 });
        return { f, upstream, answer: await chat(`${f.provider}/${upstream}`, false, [f.healthy]) };
      }),
    );
    for (const { f, upstream, answer } of results) {
      expect(answer.status, f.name).toBe(200);
      expect(answer.model).toBe(f.healthy);
      expect(answer.text).toBe('Echo: hello there');
      expect(answer.ms).toBeLessThan(15_000);
      const record = await waitForLogRecord(gw, answer.id);
      // Hedged, not fallen back to after the stalled call's idle deadline.
      expect(attemptsOf(record)).toEqual([
        { model: `${f.provider}/${upstream}`, status: null, error_code: 'hedge_cancelled', kind: 'first' },
        { model: f.healthy, status: 200, error_code: null, kind: 'hedged' },
      ]);
      expect(record).toMatchObject({ request_tokens: answer.usage.prompt_tokens, response_tokens: answer.usage.completion_tokens, billed: true });
    }
    // The stalled bodies were cancelled upstream, not left hanging.
    await expect.poll(() => mock.requests.filter((r) => r.model?.includes('stall-json')).every((r) => r.aborted)).toBe(true);
    expect(mock.requests.filter((r) => r.model?.includes('stall-json'))).toHaveLength(2);
  });

  it('gives one answer and one bill when both hedged calls answer (the learned hedge point: small latencies)', async () => {
    for (const c of CASES) {
      const primary = `${c.prefix}pair-${c.mode}`;
      const other = `${c.prefix}other-${c.mode}`;
      // 20 quick answers teach the gateway this deployment's time to first token: its hedge point
      // drops to the 1 s floor.
      for (let i = 0; i < 20; i++) expect((await chat(`${c.provider}/${primary}`, c.stream)).status).toBe(200);
      // Then it answers at 1.3 s, and the hedge started at 1 s answers at about the same time.
      mock.setBehavior(primary, { delayMs: 1300, reply: 'one two three' });
      mock.setBehavior(other, { delayMs: 250, reply: 'four five six seven' });
      const answer = await chat(`${c.provider}/${primary}`, c.stream, [`${c.provider}/${other}`]);
      expect(answer.status, `${c.name} ${c.mode}`).toBe(200);
      expect(['one two three', 'four five six seven']).toContain(answer.text);
      const winner = answer.text === 'one two three' ? primary : other;
      expect(answer.model).toBe(`${c.provider}/${winner}`);
      expect(mock.requests.filter((r) => r.model === other)).toHaveLength(1);
      const record = await waitForLogRecord(gw, answer.id);
      const attempts = attemptsOf(record);
      expect(attempts).toHaveLength(2);
      expect(attempts.filter((a: any) => a.status === 200)).toEqual([{ model: `${c.provider}/${winner}`, status: 200, error_code: null, kind: winner === other ? 'hedged' : 'first' }]);
      expect(attempts.filter((a: any) => a.error_code === 'hedge_cancelled')).toHaveLength(1);
      expect(record).toMatchObject({ request_tokens: answer.usage.prompt_tokens, response_tokens: answer.usage.completion_tokens });
      expect(answer.usage.completion_tokens).toBe(answer.text.split(' ').length);
    }
    const metrics = await scrape();
    expect(sample(metrics, 'gateway_hedges_total', { model: 'main/pair-json' })).toBe(1);
    expect(sample(metrics, 'gateway_hedges_total', { model: 'gen/gpair-stream' })).toBe(1);
  });

  it('moves the traffic off a deployment whose latency doubles (lowest_latency)', async () => {
    mock.setBehavior('duo-a', { delayMs: 100 });
    mock.setBehavior('duo-b', { delayMs: 150 });
    const servedBy = async (n: number, stream: boolean) => {
      const before = mock.requests.length;
      for (let i = 0; i < n; i++) expect((await chat('duo', stream)).status).toBe(200);
      return mock.requests.slice(before).map((r) => r.model);
    };
    const warm = await servedBy(20, true);
    expect(warm.slice(10).filter((m) => m === 'duo-a').length).toBeGreaterThanOrEqual(7);
    mock.setBehavior('duo-a', { delayMs: 200 });
    const after = await servedBy(25, true);
    expect(after.slice(10).filter((m) => m === 'duo-b').length).toBeGreaterThanOrEqual(11);
  });

  it('probes a primary in a long outage with single calls, and uses it again within 30 s of its recovery (breaker periods scaled 25 times)', async () => {
    mock.setBehavior('sick', { status: 503 });
    const calls = () => mock.requests.filter((r) => r.model === 'sick').length;
    const perRequest: number[] = [];
    // One call every 40 ms (1 s scaled) for 2.4 s (60 s scaled).
    const outageEnds = Date.now() + 2400;
    while (Date.now() < outageEnds) {
      const before = calls();
      expect((await chat('main/sick', false, ['main/healthy'])).model).toBe('main/healthy');
      perRequest.push(calls() - before);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    // Closed, a failing call is retried once (routing.retries 1) until 5 failures open the circuit;
    // after that each probe is one call, never retried.
    expect(perRequest.slice(0, 3)).toEqual([2, 2, 2]);
    expect(perRequest.slice(3).every((n) => n <= 1)).toBe(true);
    expect(perRequest.slice(3).some((n) => n === 1)).toBe(true);
    mock.setBehavior('sick', {});
    const recovered = Date.now();
    while ((await chat('main/sick', false, ['main/healthy'])).model !== 'main/sick') await new Promise((resolve) => setTimeout(resolve, 40));
    expect(Date.now() - recovered).toBeLessThan(1200); // 30 s scaled
  });
});
