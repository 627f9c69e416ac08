import { mkdtemp, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnNode, startBenchGateway, startMock, waitForHttp } from './processes.ts';
import { BENCH_KEY, target } from './targets.ts';
import { pacedRun, pooled, type PacedResult } from './paced.ts';
const mock = await startMock();
const mockBase = `http://127.0.0.1:${mock.port}/v1`;
const port = await freePort();
const floor = spawnNode('floor', ['--import', 'tsx', 'bench/floor-proxy.ts'], { env: { PORT: String(port), UPSTREAM: `${mockBase}/chat/completions` } });
await waitForHttp(`http://127.0.0.1:${port}`, floor);
await writeFile('/tmp/exp/nginx.conf', `worker_processes 1; daemon on; pid /tmp/exp/nginx.pid; error_log /tmp/exp/nginx.err;
events { worker_connections 1024; }
http { access_log off; upstream mock { server 127.0.0.1:${mock.port}; keepalive 64; }
  server { listen 127.0.0.1:9913; location / { proxy_pass http://mock; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering off; } } }`);
execFileSync('nginx', ['-c', '/tmp/exp/nginx.conf']);
const floorVariants = (process.env.FLOORS ?? '').split(';').filter(Boolean).map((v) => { const i = v.indexOf('='); return [v.slice(0, i), v.slice(i + 1)]; });
const extraFloors: { name: string; port: number; child: any }[] = [];
for (const [name, flags] of floorVariants) {
  const p = await freePort();
  const child = spawnNode(name!, [...(flags ?? '').split(' ').filter(Boolean), '--import', 'tsx', 'bench/floor-proxy.ts'], { env: { PORT: String(p), UPSTREAM: `${mockBase}/chat/completions` } });
  await waitForHttp(`http://127.0.0.1:${p}`, child);
  extraFloors.push({ name: name!, port: p, child });
}
const entries = (process.env.ENTRIES ?? 'dist/main.mjs').split(',').filter(Boolean);
const gws = [];
for (const [i, entry] of entries.entries()) gws.push(await startBenchGateway({ name: `gw${i}`, entry, mockUrl: mockBase, dataDir: await mkdtemp(join(tmpdir(), 'gw-t-')) }));
const up = { authorization: 'Bearer bench-upstream-key' };
const targets = [target('direct', `${mockBase}/chat/completions`, up), target('nginx', `http://127.0.0.1:9913/v1/chat/completions`, up), target('floor', `http://127.0.0.1:${port}/v1/chat/completions`, up),
  ...extraFloors.map((f) => target(f.name, `http://127.0.0.1:${f.port}/v1/chat/completions`, up)),
  ...gws.map((g, i) => target(`gw${i}`, `${g.url}/api/v1/chat/completions`, { authorization: `Bearer ${BENCH_KEY}` }))];
for (const t of targets) await pacedRun(t, { rate: 500, seconds: 2 });
const rounds = new Map<string, PacedResult[]>(targets.map((t) => [t.name, []]));
const R = Number(process.env.ROUNDS ?? 5), S = Number(process.env.SECONDS ?? 2);
for (let r = 0; r < R; r++) for (const t of (r % 2 ? [...targets].reverse() : targets)) { if (process.env.WARM) await pacedRun(t, { rate: 500, seconds: Number(process.env.WARM) }); rounds.get(t.name)!.push(await pacedRun(t, { rate: 500, seconds: S })); }
const d = pooled(rounds.get('direct')!);
for (const [n, rs] of rounds) { const p = pooled(rs); console.log(`${n.padEnd(7)} p50 ${p.p50.toFixed(2)} (+${(p.p50 - d.p50).toFixed(2)}) p99 ${p.p99.toFixed(2)} (+${(p.p99 - d.p99).toFixed(2)}) per-round p99 ${rs.map((x) => x.p99.toFixed(1)).join(' ')}`); }
execFileSync('nginx', ['-c', '/tmp/exp/nginx.conf', '-s', 'stop']);
for (const g of gws) await g.stop();
await floor.stop(); for (const f of extraFloors) await f.child.stop(); await mock.stop();
