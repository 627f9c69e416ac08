/**
 * The container image (Dockerfile), built and run with ../shared/tools/podman as an operator would
 * run it: read-only root filesystem, no capabilities, the config mounted read-only (as a ConfigMap
 * is), the data directory a volume, host network so that the mock upstream on this machine is
 * reachable. Checks: health, a chat call through the container to the mock upstream, a management
 * write refused with 409 for the read-only config, the fixed non-root user, SIGTERM that lets a
 * stream in flight finish, exits 0 and loses no call-log record (read back by a second container on
 * the same volume), the size the image adds to its base, its OCI labels and health check, and the
 * refusal of a TypeScript plugin in the image built without tsx.
 *
 * `npm run test:container` (its own vitest config: a first build takes minutes, later ones use
 * podman's layer cache).
 */
import { execFile } from 'node:child_process';
import { chmod, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../_process.ts';
import { DEMO_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';

const exec = promisify(execFile);
const PODMAN = resolve('../shared/tools/podman');
const BASE = 'docker.io/library/debian:trixie-slim';
const IMAGE = 'localhost/llm-gateway:test';
const MASTER = 'sk-bf-container-master-key-3a9e71c5d2';
/** What the image may add to its base (issue 33: Node.js ~100 MB of it, Debian's package with ICU). */
const MAX_ADDED_BYTES = 120_000_000;

const tag = `${process.pid}-${Date.now()}`;
const volume = `gw-test-data-${tag}`;
const names: string[] = [];
let mock: MockUpstream;
let dir: string;

async function podman(args: string[], timeout = 120_000) {
  // Through bash: CI's copy of shared/ may not keep the script's mode bits.
  const { stdout } = await exec('bash', [PODMAN, ...args], { timeout, maxBuffer: 64 << 20 });
  return stdout.trim();
}

/** What the container printed: the gateway logs JSON lines on stderr. */
async function logsOf(name: string) {
  const { stdout, stderr } = await exec('bash', [PODMAN, 'logs', name], { maxBuffer: 64 << 20 });
  return stdout + stderr;
}

interface Running {
  name: string;
  url: string;
}

/** Runs the image detached, as a Kubernetes pod runs it (read-only root, no capabilities, config read-only). */
async function runGateway(suffix: string, { mountConfig = true, config = 'gateway.yaml' } = {}): Promise<Running> {
  const port = await freePort();
  const name = `gw-test-${suffix}-${tag}`;
  names.push(name);
  await podman([
    'run', '-d', '--name', name,
    '--read-only', '--cap-drop=ALL', '--security-opt=no-new-privileges',
    ...(mountConfig ? ['-v', `${join(dir, config)}:/etc/gateway/gateway.yaml:ro`] : []),
    '-v', `${volume}:/var/lib/gateway`,
    '-e', `PORT=${port}`, '-e', 'HOST=127.0.0.1', '-e', `GATEWAY_MASTER_KEY=${MASTER}`, '-e', `MOCK_URL=${mock.url}/v1`,
    IMAGE,
  ]);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/v1/system/health`)).status === 200) return { name, url };
    } catch {}
    const state = await podman(['inspect', '--format', '{{.State.Status}}', name]);
    if (state === 'exited' || Date.now() > deadline) throw new Error(`the container did not become healthy (${state}):\n${await logsOf(name)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const chat = (url: string, model = 'gpt-4o-mini', stream = false) =>
  fetch(`${url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hello from the container test, streamed slowly in many small pieces' }] }),
  });

const VERSION = JSON.parse(await readFile('package.json', 'utf8')).version as string;
const REVISION = 'c0ffee0000000000000000000000000000000000';

beforeAll(async () => {
  if (!existsSync(PODMAN)) throw new Error(`${PODMAN} is missing: the container test runs podman through it`);
  await podman(['base'], 900_000);
  // Docker's image format: podman's default (OCI) has no HEALTHCHECK.
  await podman(['build', '--format', 'docker', '--build-arg', `VERSION=${VERSION}`, '--build-arg', `REVISION=${REVISION}`, '-t', IMAGE, '.'], 1_500_000);
  mock = await startMockUpstream();
  dir = await mkdtemp(join(tmpdir(), 'gw-container-'));
  await cp(resolve('test/container/gateway.yaml'), join(dir, 'gateway.yaml'));
  await chmod(dir, 0o755);
  await chmod(join(dir, 'gateway.yaml'), 0o644);
  await podman(['volume', 'create', volume]);
}, 2_400_000);

afterAll(async () => {
  for (const name of names) await podman(['rm', '-f', name]).catch(() => {});
  await podman(['volume', 'rm', '-f', volume]).catch(() => {});
  await mock?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the container image', () => {
  let gw: Running;
  let calls = 0;

  it('adds less than 120 MB to its base, and holds no sources, tests or compiler', async () => {
    const size = async (image: string) => Number(await podman(['image', 'inspect', '--format', '{{.Size}}', image]));
    const added = (await size(IMAGE)) - (await size(BASE));
    console.log(`the image adds ${(added / 1e6).toFixed(1)} MB to ${BASE}`);
    expect(added).toBeLessThan(MAX_ADDED_BYTES);
    const listing = await podman(['run', '--rm', '--entrypoint', 'sh', IMAGE, '-c', 'ls /app; ls /app/dist; command -v g++ cc make npm python3 || true']);
    // /app/dist/console is the built console (static files), not its sources.
    expect(listing.split('\n').sort()).toEqual(['console', 'dist', 'main.mjs', 'main.mjs.map', 'node_modules', 'package.json', 'sqlite-worker.mjs', 'sqlite-worker.mjs.map'].sort());
    // The maps point at src/ lines without carrying the sources; no build-only package ships.
    const shipped = await podman(['run', '--rm', '--entrypoint', 'sh', IMAGE, '-c',
      'grep -c sourcesContent dist/main.mjs.map dist/sqlite-worker.mjs.map; ls node_modules node_modules/@opentelemetry']);
    expect(shipped).toMatch(/^dist\/main\.mjs\.map:0\ndist\/sqlite-worker\.mjs\.map:0\n/);
    for (const name of ['vite', 'rollup', 'preact', 'uplot', 'sdk-node', 'exporter-trace-otlp-grpc', 'exporter-zipkin', 'tsx', 'esbuild']) {
      expect(shipped.split(/\s+/), name).not.toContain(name);
    }
  });

  it('carries the OCI labels (version and revision from the build) and a health check on /v1/system/health', async () => {
    const labels = JSON.parse(await podman(['image', 'inspect', '--format', '{{json .Labels}}', IMAGE]));
    expect(labels).toMatchObject({
      'org.opencontainers.image.title': 'llm-gateway',
      'org.opencontainers.image.version': VERSION,
      'org.opencontainers.image.revision': REVISION,
    });
    for (const key of ['description', 'source', 'licenses']) expect(labels).toHaveProperty(`org.opencontainers.image.${key}`);
    const check = JSON.parse(await podman(['image', 'inspect', '--format', '{{json .HealthCheck}}', IMAGE]));
    expect(check.Test.join(' ')).toMatch(/^CMD node -e .*\/v1\/system\/health/);
  });

  it('starts on a read-only root filesystem and answers health', async () => {
    gw = await runGateway('a');
    const health = await (await fetch(`${gw.url}/v1/system/health`)).json();
    expect(health.status).toBe('healthy');
    expect(health.details.database.kind).toBe('sqlite');
  });

  it('runs as the fixed non-root user, unable to write outside the data directory and /tmp', async () => {
    expect(await podman(['inspect', '--format', '{{.Config.User}}', gw.name])).toBe('10001:10001');
    const status = await podman(['exec', gw.name, 'cat', '/proc/1/status']);
    expect(status).toMatch(/^Uid:\s+10001\s+10001\s+10001\s+10001$/m);
    expect(status).toMatch(/^CapEff:\s+0+$/m);
    const tryWrite = (path: string) => podman(['exec', gw.name, 'sh', '-c', `touch ${path} && echo ok || echo refused`]);
    expect(await tryWrite('/app/x')).toBe('refused');
    expect(await tryWrite('/etc/gateway/x')).toBe('refused');
    expect(await tryWrite('/var/lib/gateway/x')).toBe('ok');
    expect(await tryWrite('/tmp/x')).toBe('ok');
  });

  it('serves a chat call through the container to the mock upstream', async () => {
    const answer = await chat(gw.url);
    calls++;
    expect(answer.status).toBe(200);
    expect((await answer.json()).choices[0].message.content).toContain('hello from the container test');
    expect(mock.requests.at(-1)!.headers.authorization).toBe('Bearer mock-key');
  });

  it('refuses a management write with 409 for the read-only config, saying how to change it', async () => {
    const res = await fetch(`${gw.url}/v1/admin/groups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Another group' }),
    });
    expect(res.status).toBe(409);
    const { error } = await res.json();
    expect(error.code).toBe('config_read_only');
    expect(error.message).toMatch(/read-only.*git.*writable volume/s);
  });

  it('its health check passes while the gateway serves', async () => {
    // `podman healthcheck run` runs the image's HEALTHCHECK command in the container: exit 0 is healthy.
    await expect(podman(['healthcheck', 'run', gw.name])).resolves.toBeDefined();
  });

  it('on SIGTERM finishes the stream in flight to its end, flushes the call log and exits 0', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await chat(gw.url)).status).toBe(200);
      calls++;
    }
    // A stream of many chunks 400 ms apart: SIGTERM lands after its first chunk, mid-stream.
    const answer = await chat(gw.url, 'mock/slow-400', true);
    calls++;
    expect(answer.status).toBe(200);
    const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
    let before = '';
    while (!before.includes('data: ')) before += (await reader.read()).value ?? '';
    await podman(['kill', '--signal', 'TERM', gw.name]);
    let after = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) after += chunk.value;
    // The rest came after the signal, to the end: content, then [DONE], no shutdown error.
    expect(after).toMatch(/"content":"[^"]+"/);
    expect(after.trimEnd()).toMatch(/data: \[DONE\]$/);
    expect(before + after).not.toContain('server_shutting_down');
    const content = [...(before + after).matchAll(/"content":"([^"]*)"/g)].map((m) => m[1]).join('');
    expect(content).toContain('streamed slowly in many small pieces');
    expect(await podman(['wait', gw.name], 60_000)).toBe('0');
    const logs = await logsOf(gw.name);
    expect(logs).toContain('shutting down');
    expect(logs).not.toMatch(/"level":"error"/);
  });

  it('run without a mounted config, refuses the public demo key and lets the master key in', async () => {
    const bare = await runGateway('bare', { mountConfig: false });
    const status = (key: string) => fetch(`${bare.url}/v1/system/status`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
    // The sample gateway.yaml's key, published in README and the file itself.
    expect(await status('sk-bf-demo-0000000000000000000000000000')).toBe(401);
    expect(await status(MASTER)).toBe(200);
    await podman(['rm', '-f', bare.name]);
  });

  it('built without TYPESCRIPT_PLUGINS, refuses a .ts plugin at start and says how to fix it', async () => {
    // The module need not exist: a .ts path is refused before anything is read.
    const config = `${await readFile(join(dir, 'gateway.yaml'), 'utf8')}pipeline:\n  - log\n  - auth\n  - name: custom\n    module: ./plugin.ts\n  - permission\n  - route\n  - upstream\n`;
    await writeFile(join(dir, 'with-ts-plugin.yaml'), config);
    await chmod(join(dir, 'with-ts-plugin.yaml'), 0o644);
    const failed = await runGateway('ts-plugin', { config: 'with-ts-plugin.yaml' }).then(() => null, (error: Error) => error);
    expect(failed?.message).toMatch(/did not become healthy \(exited\)/);
    expect(failed?.message).toMatch(/TypeScript plugins need tsx, which this installation leaves out: compile the plugin to \.js or \.mjs, or build the image with --build-arg TYPESCRIPT_PLUGINS=true/);
  });

  it('lost no call-log record: a second container on the same volume lists every call', async () => {
    const second = await runGateway('b');
    const res = await fetch(`${second.url}/v1/admin/logs?page_size=100`, { headers: { authorization: `Bearer ${MASTER}` } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.meta.total).toBe(calls);
    expect(body.data.filter((r: any) => r.model === 'mock/slow-400')).toHaveLength(1);
    await podman(['stop', '-t', '30', second.name], 60_000);
    expect(await podman(['inspect', '--format', '{{.State.ExitCode}}', second.name])).toBe('0');
  });
});
