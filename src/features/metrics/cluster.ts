/**
 * `/metrics` with `server.workers` > 1: each worker keeps its own registry, so a scrape, which
 * reaches whichever worker took the connection, must answer for the whole group. The worker asks
 * the primary over the cluster IPC channel; the primary asks every live worker for its registry
 * (`getMetricsAsJSON`), sums them with prom-client's `AggregatorRegistry.aggregate` (counters,
 * histogram buckets, sums and counts, and gauges: every metric here aggregates by `sum`), and
 * answers with the exposition. Nothing of this runs on the request path, only per scrape.
 *
 * Counters must never go down between scrapes without a restart of the group, or Prometheus
 * reads a reset and `rate()` counts the whole remaining total again. So the primary keeps each
 * worker's last snapshot: a worker that does not answer within the timeout is counted with its
 * last counters and histograms, and one that exited keeps its last ones in the sum for good. Only
 * what a worker counted after its last scrape before dying is lost. Gauges are current values:
 * only the workers that answered contribute theirs.
 */
import { AggregatorRegistry, type Registry } from 'prom-client';
import { serviceUnavailable } from '../../kernel/errors.ts';

/** Set by the primary in the environment of the workers it forks: join the group's metrics. */
export const GROUP_ENV = 'GATEWAY_METRICS_GROUP';
/** How long the primary waits for the workers' snapshots before answering without them. */
export const COLLECT_TIMEOUT_MS = 1000;

/** One registry as `getMetricsAsJSON()` gives it: what crosses the IPC channel. */
type Snapshot = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

const SCRAPE = 'gateway:metrics:scrape'; // worker -> primary: a scrape arrived, answer `id`
const COLLECT = 'gateway:metrics:collect'; // primary -> worker: send your snapshot for `round`
const SNAPSHOT = 'gateway:metrics:snapshot'; // worker -> primary: the snapshot for `round`
const RESULT = 'gateway:metrics:result'; // primary -> worker: the group's exposition for `id`

type Message =
  | { type: typeof SCRAPE; id: number }
  | { type: typeof COLLECT; round: number }
  | { type: typeof SNAPSHOT; round: number; metrics: Snapshot }
  | { type: typeof RESULT; id: number; body?: string; error?: string };

// Other code may use the channel too: only our own types are ours.
const isMessage = (m: unknown): m is Message =>
  typeof m === 'object' && m !== null && String((m as { type?: unknown }).type).startsWith('gateway:metrics:');
const ignore = () => {};

/** What the primary uses of a node:cluster worker. */
export interface GroupWorker {
  readonly id: number;
  isConnected(): boolean;
  send(message: Message, callback: (error: Error | null) => void): boolean;
}

/** What the primary uses of node:cluster. */
export interface GroupPrimary {
  readonly workers?: NodeJS.Dict<GroupWorker>;
  on(event: 'message', listener: (worker: GroupWorker, message: unknown) => void): unknown;
  on(event: 'exit', listener: (worker: GroupWorker) => void): unknown;
}

/** Counters and histograms only: the totals that stay true after their worker stops answering. */
const totalsOf = (snapshot: Snapshot): Snapshot => snapshot.filter((metric) => String(metric.type) !== 'gauge');

/** In the primary: answer the workers' scrapes with the whole group's metrics. */
export function serveGroupMetrics(cluster: GroupPrimary, timeoutMs = COLLECT_TIMEOUT_MS): void {
  const latest = new Map<number, Snapshot>(); // per live worker, its last snapshot
  const exited: Snapshot[] = []; // the totals of workers gone, folded into one now and then
  const rounds = new Map<number, (workerId: number, answered: boolean) => void>();
  let nextRound = 0;
  let folding = false;

  /** Every snapshot of the group for one scrape, after asking each live worker for a fresh one. */
  function gather(): Promise<Snapshot[]> {
    const round = nextRound++;
    const waiting = new Set<number>();
    const fresh = new Set<number>();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        rounds.delete(round);
        const live = [...latest].map(([id, snapshot]) => (fresh.has(id) ? snapshot : totalsOf(snapshot)));
        resolve([...exited, ...live]);
      };
      const timer = setTimeout(finish, timeoutMs);
      rounds.set(round, (id, answered) => {
        if (!waiting.delete(id)) return;
        if (answered) fresh.add(id);
        if (waiting.size === 0) finish();
      });
      for (const worker of Object.values(cluster.workers ?? {})) {
        if (!worker?.isConnected()) continue;
        waiting.add(worker.id);
        worker.send({ type: COLLECT, round }, (error) => error && rounds.get(round)?.(worker.id, false));
      }
      if (waiting.size === 0) finish();
    });
  }

  async function answer(worker: GroupWorker, id: number) {
    let reply: Message;
    try {
      reply = { type: RESULT, id, body: await AggregatorRegistry.aggregate(await gather()).metrics() };
    } catch (error) {
      reply = { type: RESULT, id, error: String(error) };
    }
    if (worker.isConnected()) worker.send(reply, ignore);
    if (exited.length > 1 && !folding) {
      // Fold the exited workers' totals into one snapshot, so a crash loop does not grow them;
      // workers that exit meanwhile are appended after the ones folded.
      folding = true;
      const count = exited.length;
      try {
        exited.splice(0, count, await AggregatorRegistry.aggregate(exited.slice(0, count)).getMetricsAsJSON());
      } finally {
        folding = false;
      }
    }
  }

  cluster.on('message', (worker, message) => {
    if (!isMessage(message)) return;
    // The answer is sent before folding: a failed fold is only tried again on the next scrape.
    if (message.type === SCRAPE) answer(worker, message.id).catch(ignore);
    else if (message.type === SNAPSHOT) {
      latest.set(worker.id, message.metrics);
      rounds.get(message.round)?.(worker.id, true);
    }
  });
  cluster.on('exit', (worker) => {
    const last = latest.get(worker.id);
    latest.delete(worker.id);
    if (last) exited.push(totalsOf(last));
    for (const settle of rounds.values()) settle(worker.id, false);
  });
}

/** What a worker uses of its IPC channel to the primary (`process`). */
export interface GroupChannel {
  send?(message: Message, callback: (error: Error | null) => void): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

/**
 * In a worker: answer the primary's requests for this registry, and render a scrape as the
 * group's metrics, got from the primary. A primary that does not answer (it always should)
 * makes the scrape fail with 503 rather than report this worker alone as the group.
 */
export function joinGroupMetrics(registry: Registry, primary: GroupChannel, timeoutMs = 3 * COLLECT_TIMEOUT_MS) {
  const waiting = new Map<number, (reply: { body?: string; error?: string }) => void>();
  let nextId = 0;
  const onMessage = (message: unknown) => {
    if (!isMessage(message)) return;
    if (message.type === COLLECT) {
      // A registry that cannot be read sends nothing: the primary then counts its last totals.
      void registry.getMetricsAsJSON().then((metrics) => primary.send?.({ type: SNAPSHOT, round: message.round, metrics }, ignore), ignore);
    } else if (message.type === RESULT) waiting.get(message.id)?.(message);
  };
  primary.on('message', onMessage);
  return {
    render(): Promise<{ body: string; contentType: string }> {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const settle = ({ body, error }: { body?: string; error?: string }) => {
          if (!waiting.delete(id)) return;
          clearTimeout(timer);
          if (body !== undefined) resolve({ body, contentType: registry.contentType });
          else reject(Object.assign(serviceUnavailable('The metrics of the other workers could not be gathered.', 'metrics_unavailable'), { cause: error }));
        };
        const timer = setTimeout(() => settle({ error: 'no answer from the primary' }), timeoutMs);
        waiting.set(id, settle);
        if (!primary.send) settle({ error: 'no IPC channel' });
        else primary.send({ type: SCRAPE, id }, (error) => error && settle({ error: error.message }));
      });
    },
    close() {
      primary.off('message', onMessage);
    },
  };
}
