/**
 * CPU per call of the log step alone, on the gateway's main thread and in the SQLite log worker:
 * the log plugin's onComplete for a bench-like served chat call (record, metrics, usage counters),
 * the log service and queue, and the threaded SQLite store, in this process, at a fixed rate
 * (so that batches are the size the gateway writes at saturation). Without HTTP, the mock and the
 * load generator, its figures move far less on a shared machine than `ab.ts`'s; compare builds by
 * running it from each tree, alternately. Thread CPU comes from /proc/self/task/<tid>/schedstat (ns).
 *
 *   npx tsx bench/log-handoff.ts [--calls 100000] [--rate 10000] [--warmup 20000] [--idle]
 * (--idle: the same loop without the step, i.e. what the probe itself costs.)
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createMetrics } from '../src/features/metrics/service.ts';
import { createLogService } from '../src/features/logs/service.ts';
import { createRequestId } from '../src/kernel/request-id.ts';
import { createOutcome } from '../src/pipeline/outcome.ts';
import { createTestContext, testConfig, testRuntime } from '../src/pipeline/test-context.ts';
import logPlugin from '../src/plugins/log.ts';

const { values } = parseArgs({
  options: { calls: { type: 'string', default: '100000' }, rate: { type: 'string', default: '10000' }, warmup: { type: 'string', default: '20000' }, idle: { type: 'boolean', default: false } },
});
const calls = Number(values.calls);
const rate = Number(values.rate);

const config = testConfig(`
providers: [{ id: mock, type: compat, endpoint: "http://127.0.0.1:9/v1", models: [gpt-4o-mini] }]
models: [{ id: gpt-4o-mini, provider: mock, input_price: 0.00015, output_price: 0.0006 }]
groups: [{ id: default, name: Default }]
accounts: [{ id: bench, email: bench@example.com, name: Bench, role: member, group: default }]
keys: [{ id: bench-key, name: Bench key, key_hash: "sha256:aa7191a5d83fe75d07558105de1bf4f55640fee637ad800ced31386c767d18a7", account: bench }]
`);
const dataDir = await mkdtemp(join(tmpdir(), 'gw-log-handoff-'));
const runtime = { ...testRuntime(config), dataDir };
const logger = { info() {}, warn: console.warn, error: console.error, debug() {} } as never;
const logs = await createLogService({ runtime, env: {}, logger });
runtime.services.logs = logs;
runtime.services.metrics = createMetrics('gateway_');
const step = await logPlugin.setup({}, { runtime, logger } as never);

const text = 'Say hello to the benchmark in a few short words please.';
const ctx = createTestContext({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] }, runtime);
const snapshot = runtime.current();
const key = snapshot.config.keys[0]!;
ctx.principal = { kind: 'key', accountId: 'bench', role: 'member', key, groupId: 'default' } as never;
(ctx as { rawBodyText?: string }).rawBodyText = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] });
const usage = { prompt_tokens: 12, completion_tokens: 11, total_tokens: 23 };
const responseText = JSON.stringify({
  id: 'chatcmpl-bench', object: 'chat.completion', created: 1, model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage,
});

function outcome() {
  const o = createOutcome();
  o.status = 200;
  o.cache = 'miss';
  o.served = { model: 'gpt-4o-mini', provider: 'mock', upstreamModel: 'gpt-4o-mini' };
  o.attempts = [{ model: 'gpt-4o-mini', provider: 'mock', upstreamModel: 'gpt-4o-mini', status: 200, errorCode: null, latencyMs: 1.2, kind: 'first' }];
  o.usage = usage;
  o.text = text;
  o.responseText = responseText;
  o.finished = true;
  o.durationMs = 1.7;
  return o;
}

/** ns on the CPU of every thread of this process, by thread id. */
async function threadNs(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const tid of await readdir('/proc/self/task')) {
    const stat = await readFile(`/proc/self/task/${tid}/schedstat`, 'utf8').catch(() => '');
    if (stat) out.set(tid, Number(stat.split(' ')[0]));
  }
  return out;
}

/** `n` calls at `rate` per second, in ticks of 5 ms; then waits until the queue is written. */
async function run(n: number): Promise<void> {
  const perTick = Math.max(1, Math.round(rate / 200));
  for (let done = 0; done < n; ) {
    const tick = new Promise((r) => setTimeout(r, 5));
    for (let i = 0; i < perTick && done < n; i++, done++) {
      (ctx as { id: string }).id = createRequestId(Date.now());
      const o = outcome();
      if (!values.idle) await step.onComplete!(ctx, o);
    }
    await tick;
  }
  await logs.queue.flush();
}

await run(Number(values.warmup)); // warm-up: V8 compiles the path, the table has rows
const before = await threadNs();
await run(calls);
const after = await threadNs();
const pid = String(process.pid);
let main = 0;
let worker = 0;
for (const [tid, ns] of after) {
  const used = ns - (before.get(tid) ?? 0);
  if (tid === pid) main = used;
  else worker = Math.max(worker, used);
}
console.log(`log step: main thread ${(main / calls / 1000).toFixed(2)} µs/call, busiest other thread (the log worker) ${(worker / calls / 1000).toFixed(2)} µs/call; ${calls} calls at ${rate}/s, dropped ${logs.queue.dropped}, stripped ${logs.queue.stripped}`);
await logs.close();
await rm(dataDir, { recursive: true, force: true });
