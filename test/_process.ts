/**
 * Helpers for tests that run the gateway as an operator does with `npm start`: the bundle
 * (dist/main.mjs, built once by test/_build.ts) under node with the start script's flags, in a
 * child process, so signals reach the gateway itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { startEnv, startNodeFlags } from '../scripts/start-args.ts';

/**
 * A port nothing listens on now, for a server started later. It comes from below the ephemeral
 * range (Linux: 32768 and up): a port the kernel picked there can meanwhile become the local end
 * of any outgoing connection, of this or a parallel test file, and the server's listen then fails
 * with EADDRINUSE (seen in CI: an OAuth gateway on 38081). Ports below it are only taken on purpose.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * 22_000);
    if (FETCH_BAD_PORTS.has(port)) continue;
    if (await listens(port)) return port;
  }
  throw new Error('no free port below the ephemeral range after 50 tries');
}

/**
 * The ports of the Fetch standard's "bad port" list in the range above: fetch() (undici, the SDKs)
 * refuses them ("bad port"), so a gateway there never looked healthy (seen in CI on 10080).
 */
const FETCH_BAD_PORTS = new Set([10080]);

/** Whether a server can listen on `port` of 127.0.0.1 (it is closed again at once). */
function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export interface GatewayProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  /** Everything the process printed so far. */
  output(): string;
}

/** Spawn the gateway on a free port with `env` added to this process's environment. */
export async function spawnGateway(env: Record<string, string>): Promise<GatewayProcess> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, [...startNodeFlags(), 'dist/main.mjs'], {
    env: { ...process.env, ...startEnv(), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, url: `http://127.0.0.1:${port}`, exited, output: () => output };
}

/** Resolve once /v1/system/health answers 200; fail with the process output otherwise. */
export async function waitHealthy(gateway: GatewayProcess, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(`${gateway.url}/v1/system/health`)).status === 200) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`gateway did not become healthy:\n${gateway.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Resolve once `text` was printed `count` times (once per worker, say); fail with the process output otherwise. */
export async function waitForOutput(gateway: GatewayProcess, text: string, count = 1, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (gateway.output().split(text).length - 1 < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} "${text}" lines:\n${gateway.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
