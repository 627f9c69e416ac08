/**
 * A CPU profile of our gateway under one load: plain requests (autocannon) or streams read to
 * their end, 50 at a time, written to bench/.profiles when the gateway stops.
 *
 *   npx tsx bench/profile-load.ts [--stream] [--seconds 8] [--entry dist/main.mjs] [--config other.yaml]
 *   npx tsx bench/profile-top.ts bench/.profiles/<newest>.cpuprofile 30
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startBenchGateway, startMock } from './processes.ts';
import { BENCH_KEY, target } from './targets.ts';
import { autocannonRun } from './throughput.ts';
import { streamLoad } from './streams.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: { stream: { type: 'boolean', default: false }, seconds: { type: 'string', default: '8' }, entry: { type: 'string', default: 'dist/main.mjs' }, config: { type: 'string' } },
});
const seconds = Number(values.seconds);
const mock = await startMock();
const dataDir = await mkdtemp(join(tmpdir(), 'gw-prof-'));
try {
  const gateway = await startBenchGateway({
    entry: join(ROOT, values.entry), mockUrl: `http://127.0.0.1:${mock.port}`, dataDir,
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${join(ROOT, 'bench/.profiles')}`],
    env: values.config ? { GATEWAY_CONFIG: values.config } : {},
  });
  const t = target('gateway', `${gateway.url}/api/v1/chat/completions`, { authorization: `Bearer ${BENCH_KEY}` });
  const load = () => (values.stream ? streamLoad(t, { concurrency: 50, warmupSeconds: 1, seconds }) : autocannonRun(t, { connections: 50, seconds }));
  await load(); // warm-up: the profile's steady state is what counts
  await load();
  await gateway.stop();
} finally {
  await mock.stop();
  await rm(dataDir, { recursive: true, force: true });
}
