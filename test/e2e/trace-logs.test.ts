/**
 * A log line leads to its trace: the JSON lines a real request logs on the gateway's stderr carry
 * the `trace_id` and `span_id` of the request span the gateway exports over OTLP, and its call-log
 * row the same trace id. The line checked is the one logged deepest in the request: "stream
 * resumed", written while the relay pulls the answer, after the handler has returned its Response.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, waitHealthy, type GatewayProcess } from '../_process.ts';
import { DEMO_KEY, MASTER_KEY, startMockUpstream, waitForLogRecord, type MockUpstream } from '../_setup.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../otlp-receiver.ts';

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const reply = 'one two three four five';

let mock: MockUpstream;
let receiver: OtlpReceiver;
let dir: string;
let gw: GatewayProcess;

beforeAll(async () => {
  mock = await startMockUpstream();
  receiver = await startOtlpReceiver();
  dir = await mkdtemp(join(tmpdir(), 'gw-trace-logs-'));
  gw = await spawnGateway({
    GATEWAY_CONFIG: resolve('test/fixtures/resume.yaml'),
    GATEWAY_DATA_DIR: join(dir, 'data'),
    GATEWAY_WATCH: 'false',
    GATEWAY_MASTER_KEY: MASTER_KEY,
    MOCK_URL: `${mock.url}/v1`,
    MOCK_BASE: mock.url,
    // Embedded state whatever CI exports: the call-log row is read back from this process's own store.
    REDIS_URL: '',
    DATABASE_URL: '',
    LOG_LEVEL: 'info',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  await waitHealthy(gw, 110_000);
}, 120_000); // a child process boots slowly when the whole suite runs on two cores
afterAll(async () => {
  gw?.child.kill('SIGKILL');
  await receiver?.close();
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A streamed chat whose upstream breaks after two chunks and is resumed on the fallback. */
async function resumedStream(headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'primary', fallbacks: ['prefill'], stream: true, messages: [{ role: 'user', content: 'count' }] }),
  });
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('[DONE]');
  return res.headers.get('x-request-id')!;
}

/** The JSON lines the process logged about request `id`. */
const linesOf = (id: string): Array<Record<string, unknown>> =>
  gw
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((line) => line.request === id);

describe('trace ids in the log lines of a real request', { timeout: 60_000 }, () => {
  beforeAll(() => {
    mock.setBehavior('breaks', { cutAfterChunks: 2, chunkDelayMs: 10, reply });
    mock.setBehavior('cont', { reply });
  });

  it('a line logged inside the relay carries the exported request span\'s ids, and the call-log row its trace', async () => {
    const id = await resumedStream({ traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` });
    const spans = await receiver.waitFor((all) => all.some((s) => s.kind === 2 && s.traceId === CLIENT_TRACE));
    const request = spans.find((s) => s.kind === 2 && s.traceId === CLIENT_TRACE)!;
    expect(request.parentSpanId).toBe(CLIENT_SPAN);
    const resumed = linesOf(id).filter((line) => line.msg === 'stream resumed');
    expect(resumed).toEqual([expect.objectContaining({ level: 'info', from: 'main/breaks', to: 'msgs/cont', trace_id: CLIENT_TRACE, span_id: request.spanId })]);
    expect((await waitForLogRecord(gw, id)).trace_id).toBe(CLIENT_TRACE);
  });

  it('a request without a client trace logs the ids of the trace the gateway started', async () => {
    const id = await resumedStream({});
    const row: { trace_id: string } = await waitForLogRecord(gw, id);
    expect(row.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const spans = await receiver.waitFor((all) => all.some((s) => s.kind === 2 && s.traceId === row.trace_id));
    const request = spans.find((s) => s.kind === 2 && s.traceId === row.trace_id)!;
    expect(linesOf(id).filter((line) => line.msg === 'stream resumed')).toEqual([
      expect.objectContaining({ trace_id: row.trace_id, span_id: request.spanId }),
    ]);
  });
});
