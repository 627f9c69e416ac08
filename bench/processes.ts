/**
 * Child processes of the bench: the mock upstream, our gateway and the Portkey peer each run
 * in a process of their own, so none of them shares an event loop with the load generator.
 */
import { freePort } from '../test/_process.ts';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEnv, startNodeFlags } from '../scripts/start-args.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface Child {
  name: string;
  proc: ChildProcess;
  /** The last lines the process wrote to stderr/stdout, for error reports. */
  output(): string;
  stop(): Promise<void>;
}

function track(name: string, proc: ChildProcess): Child {
  let tail = '';
  // BENCH_CHILD_LOG=<dir>: every line a child writes also lands in <dir>/<name>-<pid>.log (V8 traces).
  // Written without blocking the harness, whose timings run on the same event loop.
  const logFile = process.env.BENCH_CHILD_LOG ? createWriteStream(join(process.env.BENCH_CHILD_LOG, `${name}-${proc.pid}.log`)) : undefined;
  proc.once('exit', () => logFile?.end());
  const keep = (data: Buffer) => {
    tail = (tail + data.toString('utf8')).slice(-4000);
    logFile?.write(data);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  return {
    name,
    proc,
    output: () => tail,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Fork bench/mock-process.ts and wait for the port it listens on. */
export async function startMock(): Promise<Child & { port: number }> {
  const script = fileURLToPath(new URL('./mock-process.ts', import.meta.url));
  const proc = fork(script, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const child = track('mock', proc);
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (message: any) => resolve(Number(message.port)));
    proc.once('exit', (code) => reject(new Error(`mock upstream exited (${code}): ${child.output()}`)));
  });
  return { ...child, port };
}

/** Spawn `command <args>` with the given environment; output is kept for error reports. */
export function spawnChild(name: string, command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Child {
  const proc = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return track(name, proc);
}

/** Spawn `node <args>` (this node) with the given environment. */
export function spawnNode(name: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Child {
  return spawnChild(name, process.execPath, args, options);
}

/** Poll `url` until it answers any HTTP status (the server is up) or the time runs out. */
export async function waitForHttp(url: string, child: Child, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.proc.exitCode !== null) throw new Error(`${child.name} exited with code ${child.proc.exitCode}:\n${child.output()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`${child.name} did not answer on ${url} within ${timeoutMs} ms:\n${child.output()}`);
}

/**
 * A child listening on `port` of 127.0.0.1, once `readyPath` answers. A child that never does is
 * stopped before the error is passed on, so a failed start leaves no process behind.
 */
export async function serving(child: Child, port: number, readyPath = '/', timeoutMs?: number): Promise<Child & { url: string }> {
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}${readyPath}`, child, timeoutMs);
  } catch (error) {
    await child.stop();
    throw error;
  }
  return { ...child, url };
}

/**
 * Our gateway as `npm start` runs it (its node flags, then `nodeArgs`: a later V8 flag wins) on
 * bench/gateway.bench.yaml against the mock at `mockUrl`, ready once its health answers.
 */
export async function startBenchGateway(options: {
  name?: string;
  entry: string;
  mockUrl: string;
  dataDir: string;
  nodeArgs?: string[];
  env?: NodeJS.ProcessEnv;
}): Promise<Child & { url: string }> {
  const port = await freePort();
  const child = spawnNode(options.name ?? 'gateway', [...startNodeFlags(), ...(options.nodeArgs ?? []), options.entry], {
    cwd: ROOT,
    env: benchGatewayEnv({ port, dataDir: options.dataDir, mockUrl: options.mockUrl, env: options.env }),
  });
  return serving(child, port, '/v1/system/health');
}

/**
 * The environment the bench runs a gateway in: what `npm start` sets, then the bench config on
 * `port` against the mock at `mockUrl`, then the variant's own variables (`env`, which win).
 */
export function benchGatewayEnv(options: { port: number; dataDir: string; mockUrl: string; env?: NodeJS.ProcessEnv }): NodeJS.ProcessEnv {
  return {
    ...startEnv(),
    PORT: String(options.port),
    HOST: '127.0.0.1',
    GATEWAY_CONFIG: join(ROOT, 'bench/gateway.bench.yaml'),
    GATEWAY_DATA_DIR: options.dataDir,
    GATEWAY_WATCH: 'false',
    MOCK_URL: options.mockUrl,
    LOG_LEVEL: 'error',
    REDIS_URL: '',
    ...options.env,
  };
}

/** A build to measure, as the probes take it on their command line. */
export interface VariantSpec {
  name: string;
  /** Entry module relative to the repository (or `floor` for bench/floor-proxy.ts). */
  entry: string;
  nodeArgs: string[];
  env: Record<string, string>;
}

/** `name=entry[@node-flags][#VAR=value,...]`, e.g. `big-young=dist/main.mjs@--max-semi-space-size=64`. */
export function parseVariant(spec: string): VariantSpec {
  const name = spec.slice(0, spec.indexOf('='));
  const [launch = '', envSpec = ''] = spec.slice(name.length + 1).split('#');
  const [entry = '', flags = ''] = launch.split('@');
  const env = Object.fromEntries(envSpec.split(',').filter(Boolean).map((pair) => pair.split('=', 2) as [string, string]));
  return { name, entry, nodeArgs: flags.split(' ').filter(Boolean), env };
}

/** The bare reverse proxy of bench/floor-proxy.ts, relaying to `upstream` (the mock's chat URL): the least a Node.js gateway can add here. */
export async function startFloor(upstream: string): Promise<Child & { url: string }> {
  const port = await freePort();
  const child = spawnNode('floor', ['--import', 'tsx', 'bench/floor-proxy.ts'], { cwd: ROOT, env: { PORT: String(port), UPSTREAM: upstream } });
  return serving(child, port);
}

/** Resident memory of a process from /proc (Linux): current (VmRSS) and peak (VmHWM), in MiB. */
export function memoryOf(pid: number | undefined): { rss: number; peak: number } | null {
  if (!pid) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

export { freePort };
