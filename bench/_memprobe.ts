// Idle RSS of the gateway under variants (full node flag lists).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, memoryOf, serving, spawnNode, startMock } from './processes.ts';

const mock = await startMock();
const variants: Array<[string, string[], string, Record<string, string>?]> = JSON.parse(process.argv[2] ?? '[]');
for (const [name, flags, entry, env] of variants) {
  const dataDir = await mkdtemp(join(tmpdir(), 'mem-'));
  const port = await freePort();
  const t0 = Date.now();
  const child = spawnNode(name, [...flags, entry], {
    env: { PORT: String(port), HOST: '127.0.0.1', GATEWAY_CONFIG: join(process.cwd(), process.env.CFG ?? 'bench/gateway.bench.yaml'), GATEWAY_DATA_DIR: dataDir, GATEWAY_WATCH: 'false', MOCK_URL: `http://127.0.0.1:${mock.port}/v1`, LOG_LEVEL: 'error', REDIS_URL: '', ...env },
  });
  const gw = await serving(child, port, '/v1/system/health');
  const up = Date.now() - t0;
  await new Promise((r) => setTimeout(r, 3000));
  const m = memoryOf(gw.proc.pid);
  console.log(`${name.padEnd(24)} rss ${m?.rss.toFixed(1)} MiB (start ${up} ms)`);
  await gw.stop();
}
await mock.stop();
