/**
 * CPU per request, by thread: a steadier figure than throughput on a machine whose speed drifts.
 * Starts the mock and the gateway (the npm start bundle, or the sources with BENCH_SOURCES=1),
 * warms up, then loads the gateway at saturation and reads every thread's CPU time from /proc
 * before and after.   npx tsx bench/cpu-probe.ts [seconds] [rounds]
 * PROBE_NODE_ARGS passes flags to the gateway's node, e.g. `--cpu-prof --cpu-prof-dir=bench/.profiles`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGateway } from '../scripts/build.ts';
import { startNodeFlags } from '../scripts/start-args.ts';
import { threadCpu } from './thread-cpu.ts';
import { freePort, spawnNode, startMock, waitForHttp } from './processes.ts';
import { BENCH_KEY, target } from './targets.ts';
import { autocannonRun } from './throughput.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.argv[2] ?? 5);
const rounds = Number(process.argv[3] ?? 3);
const mock = await startMock();
const dataDir = await mkdtemp(join(tmpdir(), 'gw-probe-'));
const entry = process.env.BENCH_SOURCES === '1' ? 'src/main.ts' : 'dist/main.mjs';
if (entry.startsWith('dist/')) await buildGateway(ROOT);
const port = await freePort();
const nodeArgs = (process.env.PROBE_NODE_ARGS ?? '').split(' ').filter(Boolean);
const gateway = spawnNode('gateway', [...nodeArgs, ...startNodeFlags(), entry], {
  cwd: ROOT,
  env: {
    PORT: String(port), HOST: '127.0.0.1', GATEWAY_CONFIG: join(ROOT, 'bench/gateway.bench.yaml'), GATEWAY_DATA_DIR: dataDir,
    GATEWAY_WATCH: 'false', MOCK_URL: `http://127.0.0.1:${mock.port}`, LOG_LEVEL: 'error', REDIS_URL: '',
  },
});
try {
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/v1/system/health`, gateway);
  const t = target('gateway', `${url}/api/v1/chat/completions`, { authorization: `Bearer ${BENCH_KEY}` });
  await autocannonRun(t, { connections: 64, seconds: 2 });
  for (let round = 1; round <= rounds; round++) {
    const before = await threadCpu(gateway.proc.pid!);
    const result = await autocannonRun(t, { connections: 64, seconds });
    const after = await threadCpu(gateway.proc.pid!);
    const served = result.rps * seconds;
    const parts = [...after].map(([name, us]) => [name, (us - (before.get(name) ?? 0)) / served] as const).filter(([, us]) => us >= 0.5);
    const total = parts.reduce((sum, [, us]) => sum + us, 0);
    const detail = parts.sort((a, b) => b[1] - a[1]).map(([name, us]) => `${name} ${us.toFixed(0)}`).join(', ');
    console.log(`round ${round}: ${Math.round(result.rps)} req/s, ${result.failures} failed; gateway CPU ${total.toFixed(0)} µs/request (${detail})`);
  }
} finally {
  await gateway.stop();
  await mock.stop();
  await rm(dataDir, { recursive: true, force: true });
}
