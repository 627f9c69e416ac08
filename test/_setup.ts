/**
 * e2e helpers: start the real gateway in-process on a free port against a config fixture,
 * with the mock upstream's address in the environment.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll } from 'vitest';
import { createLogger } from '../src/kernel/logger.ts';
import type { Logger } from '../src/pipeline/types.ts';
import { startGateway, type Started } from '../src/server.ts';
import { startMockUpstream, type MockUpstream } from './mock-upstream/server.ts';
import { freePort } from './_process.ts';

export const DEMO_KEY = 'sk-bf-test-user-0000000000000000000000000000';
export const MASTER_KEY = 'sk-bf-master-test-key-5f0c9a7e2b4d81c3';

export interface TestGateway extends Started {
  dir: string;
  configFile: string;
  close(): Promise<void>;
}

/**
 * Copy `test/fixtures/<fixture>` into a temp dir (so tests may edit it) and start a gateway on it.
 * `env` adds to the environment (`MOCK_URL` is commonly the mock's `/v1` base).
 */
export async function startTestGateway(
  fixture: string,
  env: Record<string, string> = {},
  options: { watch?: boolean; logger?: Logger } = {},
): Promise<TestGateway> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-test-'));
  const configFile = join(dir, 'gateway.yaml');
  await cp(resolve('test/fixtures', fixture), configFile);
  const started = await startGateway({
    logger: options.logger ?? createLogger((process.env.TEST_LOG_LEVEL as 'info') ?? 'silent'),
    env: { GATEWAY_CONFIG: configFile, PORT: '0', HOST: '127.0.0.1', GATEWAY_MASTER_KEY: MASTER_KEY, GATEWAY_DATA_DIR: join(dir, 'data'), ...env },
    watch: options.watch ?? false,
  });
  if (!started) throw new Error('gateway did not start');
  return {
    ...started,
    dir,
    configFile,
    async close() {
      await started.server.close(true);
      await started.gateway.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function client(gateway: { url: string }, apiKey = DEMO_KEY, options: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) {
  return new OpenAI({ apiKey, baseURL: `${gateway.url}/api/v1`, maxRetries: 0, ...options });
}

export { startMockUpstream, type MockUpstream };

/**
 * A port nothing listens on: an upstream that refuses connections. From below the ephemeral range
 * (see freePort), where no server started with port 0 by a parallel test can land on it.
 */
export const closedPort = freePort;

/** A logger that keeps what it is told, for tests that check what the gateway logs. */
export function recordingLogger(): Logger & { lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> } {
  const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const keep = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, fields });
  return { lines, info: keep('info'), warn: keep('warn'), error: keep('error') };
}

/**
 * Register beforeAll/afterAll that start a mock upstream and a gateway on `fixture` (with
 * `MOCK_URL` set to the mock's `/v1` and `MOCK_BASE` to its root); the returned object is
 * filled once they run.
 */
export function useGateway(fixture: string, env: Record<string, string> = {}, options: { watch?: boolean; logger?: Logger } = {}) {
  const state = {} as { mock: MockUpstream; gw: TestGateway };
  beforeAll(async () => {
    state.mock = await startMockUpstream();
    state.gw = await startTestGateway(fixture, { MOCK_URL: `${state.mock.url}/v1`, MOCK_BASE: state.mock.url, ...env }, options);
  });
  afterAll(async () => {
    await state.gw?.close();
    await state.mock?.close();
  });
  return state;
}

/** A JSON call to a management route; answers status, parsed body and headers. */
export async function api(gw: { url: string }, method: string, path: string, body?: unknown, key = MASTER_KEY) {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/** The call log's detail record of one request (by its x-request-id), once the log queue has written it. */
export async function waitForLogRecord(gw: { url: string }, id: string) {
  // Up to about 5 s: a gateway in a child process on a loaded machine writes its queue late.
  for (let i = 0; i < 250; i++) {
    const { status, body } = await api(gw, 'GET', `/v1/admin/logs/${id}`);
    if (status === 200) return body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no log row ${id}`);
}
