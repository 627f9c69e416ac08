import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnNode, startBenchGateway, startMock, waitForHttp } from './processes.ts';
import { BENCH_KEY, target } from './targets.ts';
import { ttfbSampler } from './ttfb.ts';
const mock = await startMock();
const mockBase = `http://127.0.0.1:${mock.port}/v1`;
const port = await freePort();
const floor = spawnNode('floor', ['--import', 'tsx', 'bench/floor-proxy.ts'], { env: { PORT: String(port), UPSTREAM: `${mockBase}/chat/completions` } });
await waitForHttp(`http://127.0.0.1:${port}`, floor);
const entries = (process.env.ENTRIES ?? 'dist/main.mjs').split(',');
const gws = [];
for (const [i, entry] of entries.entries()) gws.push(await startBenchGateway({ name: `gw${i}`, entry, mockUrl: mockBase, dataDir: await mkdtemp(join(tmpdir(), 'gw-t-')) }));
const up = { authorization: 'Bearer bench-upstream-key' };
const targets = [target('direct', `${mockBase}/chat/completions`, up), target('floor', `http://127.0.0.1:${port}/v1/chat/completions`, up),
  ...gws.map((g, i) => target(`gw${i}`, `${g.url}/api/v1/chat/completions`, { authorization: `Bearer ${BENCH_KEY}` }))];
const s = ttfbSampler(targets);
await s.sequential(200);
for (let r = 0; r < Number(process.env.ROUNDS ?? 3); r++) {
  const res = await s.sequential(300);
  console.log([...res].map(([n, v]) => `${n} p50 ${v.p50.toFixed(2)} p99 ${v.p99.toFixed(2)}`).join(' | '));
}
await s.close();
for (const g of gws) await g.stop();
await floor.stop(); await mock.stop();
