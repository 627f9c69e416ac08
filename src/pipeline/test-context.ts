/**
 * Test helper: a context over a hand-built snapshot, for unit tests of plugins and the runner.
 */
import { buildSnapshot } from '../config/snapshot.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { Runtime } from './runtime.ts';
import { createMemoryStore } from '../store/memory.ts';
import { createContext, type GatewayContext } from './context.ts';
import type { ChatRequest } from '../providers/openai-types.ts';
import { loadConfigText } from '../config/load.ts';

export function testConfig(yaml = 'providers: []\n'): GatewayConfig {
  const loaded = loadConfigText(yaml, '/virtual/gateway.yaml', {});
  if (!loaded.ok) throw new Error(loaded.problems.map((p) => p.message).join('\n'));
  return loaded.config;
}

export function testRuntime(config = testConfig()): Runtime {
  const snapshot = buildSnapshot(config, '/virtual/gateway.yaml', 1);
  return {
    current: () => snapshot,
    store: createMemoryStore(),
    transport: { send: async () => { throw new Error('no network in unit tests'); }, close: async () => {} },
    adapters: { get: () => { throw new Error('no adapters in unit tests'); } },
    version: '0.0.0-test',
    startedAt: Date.now(),
    lastReload: () => null,
    dataDir: '/tmp',
    baseUrl: 'http://localhost',
    services: { healthProbes: [] },
  };
}

export function createTestContext(body: Partial<ChatRequest> = {}, runtime = testRuntime(), signal = new AbortController().signal): GatewayContext {
  const chat = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }], ...body } as ChatRequest;
  return createContext({
    request: new Request('http://localhost/api/v1/chat/completions', { method: 'POST', headers: { authorization: 'Bearer k' } }),
    endpoint: 'chat',
    runtime,
    snapshot: runtime.current(),
    ip: '127.0.0.1',
    body: chat,
    rawBody: { ...chat },
    signal,
  });
}
