/**
 * What a fresh process's first upstream calls pay for their connections (issue 37), on the
 * gateway's own transport (src/providers/transport.ts): `--calls` concurrent calls to a TLS
 * upstream on 127.0.0.1 (every real provider is HTTPS), with none and with `--ahead` connections
 * opened ahead as the start does (src/boot/preconnect.ts). Prints the CPU of the calling process
 * (the client's side of the TLS handshakes lands there) and the slowest call. Each round is a new
 * transport; the first round of each kind only warms the code and is not counted.
 * Needs the `openssl` command for a throwaway certificate.
 *
 *   npx tsx bench/upstream-connect.ts [--calls 16] [--ahead 16] [--rounds 6]
 */
import { execFileSync, fork, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createTransport, type CallSignal } from '../src/providers/transport.ts';

const { values } = parseArgs({
  options: { calls: { type: 'string', default: '16' }, ahead: { type: 'string', default: '16' }, rounds: { type: 'string', default: '6' }, origin: { type: 'string' } },
});
const calls = Number(values.calls);
const rounds = Number(values.rounds);

if (values.origin) await measure(values.origin);
else await setUp();

/** A throwaway certificate, the upstream in a process of its own (its side of the handshakes must not count), then this file again to measure. */
async function setUp() {
  const dir = await mkdtemp(join(tmpdir(), 'gw-upstream-connect-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const upstreamCode = `
    const { readFileSync } = require('node:fs');
    const server = require('node:https').createServer({ key: readFileSync(${JSON.stringify(key)}), cert: readFileSync(${JSON.stringify(cert)}) }, (req, res) => {
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    server.listen(0, '127.0.0.1', () => process.send(server.address().port));
    process.on('disconnect', () => process.exit(0));`;
  const upstream = spawn(process.execPath, ['-e', upstreamCode], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const port = await new Promise<number>((resolve) => upstream.once('message', (message) => resolve(Number(message))));
    // The measuring process trusts the certificate as a deployment's CA store would (read at its start only).
    const args = ['--calls', String(calls), '--ahead', String(values.ahead), '--rounds', String(rounds), '--origin', `https://127.0.0.1:${port}`];
    const child = fork(fileURLToPath(import.meta.url), args, { execArgv: ['--import', 'tsx'], env: { ...process.env, NODE_EXTRA_CA_CERTS: cert }, stdio: 'inherit' });
    await new Promise((resolve) => child.once('exit', resolve));
  } finally {
    upstream.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

async function measure(origin: string) {
  const call = { url: `${origin}/v1/chat/completions`, headers: {}, body: '{}', connectTimeoutMs: 10_000, headersTimeoutMs: 10_000, idleTimeoutMs: 10_000 };
  const signal = () => Object.assign(new EventEmitter(), { aborted: false, reason: undefined }) as CallSignal;
  const round = async (ahead: number) => {
    const transport = createTransport();
    try {
      if (ahead) await transport.preconnect!(origin, call.connectTimeoutMs, ahead);
      const before = process.cpuUsage();
      const latencies = await Promise.all(
        Array.from({ length: calls }, async () => {
          const sent = performance.now();
          await (await transport.send({ ...call, signal: signal() })).body.text();
          return performance.now() - sent;
        }),
      );
      const cpu = process.cpuUsage(before);
      return { cpu: (cpu.user + cpu.system) / 1000, slowest: Math.max(...latencies) };
    } finally {
      await transport.close();
    }
  };
  const kinds = [0, Number(values.ahead)];
  const results = new Map(kinds.map((k) => [k, [] as Array<{ cpu: number; slowest: number }>]));
  for (let r = 0; r <= rounds; r++) {
    for (const ahead of r % 2 ? kinds : [...kinds].reverse()) {
      const result = await round(ahead);
      if (r > 0) results.get(ahead)!.push(result);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`${calls} concurrent first calls to a TLS upstream, ${rounds} rounds each (interleaved), medians:`);
  for (const [ahead, rs] of results) {
    const cpus = rs.map((x) => x.cpu);
    console.log(`  ${String(ahead).padStart(3)} opened ahead: CPU ${median(cpus).toFixed(1)} ms (${cpus.map((x) => x.toFixed(0)).join(' ')}), slowest call ${median(rs.map((x) => x.slowest)).toFixed(1)} ms`);
  }
}
