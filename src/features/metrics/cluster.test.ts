import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createOutcome } from '../../pipeline/outcome.ts';
import { joinGroupMetrics, serveGroupMetrics, type GroupChannel, type GroupPrimary, type GroupWorker } from './cluster.ts';
import { createMetrics } from './service.ts';

const served = () => ({ ...createOutcome(), status: 200, durationMs: 120, served: { model: 'm', provider: 'p', upstreamModel: 'm' } });
// IPC delivers a JSON copy, later.
const deliver = (fn: (message: unknown) => void, message: unknown) => setImmediate(() => fn(JSON.parse(JSON.stringify(message))));

/** A primary and its workers over in-memory channels; each worker has a gateway's metrics and queue-depth gauge. */
function group(timeoutMs = 50) {
  const primaryEvents = new EventEmitter();
  const workers: Record<number, GroupWorker> = {};
  serveGroupMetrics({ workers, on: (event: string, fn: never) => primaryEvents.on(event, fn) } as GroupPrimary, timeoutMs);
  let nextId = 1;
  return function fork() {
    const id = nextId++;
    const inbox = new EventEmitter();
    const state = { connected: true, mute: false, depth: 0, dropped: 0 };
    const worker: GroupWorker = {
      id,
      isConnected: () => state.connected,
      send(message, callback) {
        if (!state.mute) deliver((m) => inbox.emit('message', m), message);
        callback(null);
        return true;
      },
    };
    workers[id] = worker;
    const channel: GroupChannel = {
      send(message, callback) {
        deliver((m) => primaryEvents.emit('message', worker, m), message);
        callback(null);
        return true;
      },
      on: (event, fn) => inbox.on(event, fn),
      off: (event, fn) => inbox.off(event, fn),
    };
    const metrics = createMetrics();
    metrics.gauge('log_queue_depth', 'depth', () => state.depth);
    metrics.counter('log_queue_dropped_total', 'dropped', () => state.dropped);
    const joined = joinGroupMetrics(metrics.registry, channel);
    return {
      state,
      observe: (times: number) => {
        for (let i = 0; i < times; i++) metrics.observe({ model: 'm', endpoint: 'chat', outcome: served() });
      },
      scrape: async () => (await joined.render()).body,
      exit() {
        state.connected = false;
        delete workers[id];
        primaryEvents.emit('exit', worker);
      },
    };
  };
}

const requests = (n: number) => `gateway_requests_total{model="m",provider="p",endpoint="chat",status="200",outcome="ok"} ${n}\n`;
const latencyCount = (n: number) => `gateway_request_duration_seconds_count{model="m",provider="p",endpoint="chat"} ${n}\n`;

describe('metrics of a worker group', () => {
  it('answers a scrape on any worker with the sum of every worker\'s counters, histograms and gauges', async () => {
    const fork = group();
    const [a, b] = [fork(), fork()];
    a.observe(6);
    b.observe(7);
    a.state.depth = 2;
    b.state.depth = 3;
    for (const worker of [a, b, a, b]) {
      const text = await worker.scrape();
      expect(text).toContain(requests(13));
      expect(text).toContain(latencyCount(13));
      expect(text).toContain('gateway_request_duration_seconds_bucket{le="0.25",model="m",provider="p",endpoint="chat"} 13\n');
      expect(text).toContain('gateway_log_queue_depth 5\n');
    }
  });

  it('counts a worker that does not answer in time with its last totals, without its gauges', async () => {
    const fork = group();
    const [a, b] = [fork(), fork()];
    a.observe(6);
    b.observe(7);
    b.state.depth = 3;
    expect(await a.scrape()).toContain(requests(13));
    b.state.mute = true;
    b.observe(1); // not seen until it answers again
    const started = Date.now();
    const text = await a.scrape();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(text).toContain(requests(13));
    expect(text).toContain('gateway_log_queue_depth 0\n');
    b.state.mute = false;
    expect(await a.scrape()).toContain(requests(14));
  });

  it('keeps the totals of workers that exited in the sum, so counters never go down', async () => {
    const fork = group();
    const [a, b] = [fork(), fork()];
    a.observe(6);
    b.observe(7);
    b.state.depth = 3;
    expect(await a.scrape()).toContain(requests(13));
    b.exit();
    const c = fork();
    c.observe(2);
    let text = await a.scrape();
    expect(text).toContain(requests(15));
    expect(text).toContain(latencyCount(15));
    expect(text).toContain('gateway_log_queue_depth 0\n');
    c.exit(); // a second exit: folded with the first one
    text = await a.scrape();
    expect(text).toContain(requests(15));
    a.observe(1);
    expect(await (fork()).scrape()).toContain(requests(16));
  });

  it('keeps the log records an exited worker dropped in the group\'s total', async () => {
    const fork = group();
    const [a, b] = [fork(), fork()];
    a.state.dropped = 2;
    b.state.dropped = 3;
    expect(await a.scrape()).toContain('gateway_log_queue_dropped_total 5\n');
    b.exit();
    expect(await a.scrape()).toContain('gateway_log_queue_dropped_total 5\n');
  });

  it('fails the scrape with 503 when the primary does not answer', async () => {
    const channel: GroupChannel = { send: (_m, callback) => (callback(null), true), on: () => {}, off: () => {} };
    const joined = joinGroupMetrics(createMetrics().registry, channel, 20);
    await expect(joined.render()).rejects.toMatchObject({ status: 503, code: 'metrics_unavailable' });
  });
});
