import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile, loadConfigText, type LoadResult } from './load.ts';
import { formatProblem, type ConfigProblem } from './problems.ts';

const FILE = path.join(process.cwd(), 'gateway.yaml');

// A small valid base; tests append or change lines, so the line numbers below are stable.
const BASE = `providers:
  - id: mock
    type: compat
    endpoint: http://127.0.0.1:9999/v1
models:
  - id: gpt-4o-mini
    provider: mock
`;

function problems(text: string, env: Record<string, string> = {}): ConfigProblem[] {
  const r = loadConfigText(text, FILE, env);
  if (r.ok) throw new Error('expected problems, got a valid config');
  return r.problems;
}

function lines(text: string, env: Record<string, string> = {}): string[] {
  return problems(text, env).map(formatProblem);
}

function config(text: string, env: Record<string, string> = {}) {
  const r: LoadResult = loadConfigText(text, FILE, env);
  if (!r.ok) throw new Error(r.problems.map(formatProblem).join('\n'));
  return r.config;
}

describe('loadConfigText problems', () => {
  it('locates a bad enum value at the value, with the allowed values', () => {
    expect(lines(BASE.replace('type: compat', 'type: openai'))).toEqual([
      'gateway.yaml:3:11 providers[0].type must be one of compat, vendor_b, vendor_c, vendor_d, custom',
    ]);
  });

  it('locates a missing required field at its parent mapping', () => {
    expect(lines(BASE.replace('    endpoint: http://127.0.0.1:9999/v1\n', ''))).toEqual([
      'gateway.yaml:2:5 providers[0].endpoint is required',
    ]);
  });

  it('reports a wrong type', () => {
    expect(lines(`${BASE}server:\n  port: eighty\n`)).toEqual(['gateway.yaml:9:9 server.port must be an integer']);
    expect(lines(`${BASE}groups: { id: default }\n`)).toEqual(['gateway.yaml:8:9 groups must be a list']);
  });

  it('points an unknown field at its key, top level or nested', () => {
    expect(lines(BASE.replace('    type: compat', '    type: compat\n    endpiont: x'))).toEqual([
      'gateway.yaml:4:5 providers[0].endpiont is not a known field',
    ]);
    expect(lines(`${BASE}provider: []\n`)).toEqual(['gateway.yaml:8:1 provider is not a known field']);
  });

  it('explains that keys are stored hashed', () => {
    const text = `${BASE}keys:\n  - id: k1\n    account: admin\n    key: sk-bf-123\n`;
    expect(lines(text)).toEqual([
      'gateway.yaml:9:5 keys[0].key_hash is required',
      'gateway.yaml:11:5 keys[0].key is not allowed: keys are stored hashed: put `key_hash: sha256:<hex>` (npm run hash-key -- <key>)',
    ]);
  });

  it('rejects a malformed key_hash and provider id', () => {
    const text = BASE.replace('id: mock', 'id: Mock').replace('provider: mock', 'provider: Mock') +
      'keys:\n  - { id: k1, account: admin, key_hash: "sha256:abc" }\n';
    expect(lines(text)).toEqual([
      'gateway.yaml:2:9 providers[0].id must match ^[a-z0-9][a-z0-9-_.]*$',
      'gateway.yaml:9:41 keys[0].key_hash must match ^sha256:[0-9a-f]{64}$',
    ]);
  });

  it('names a missing ${VAR} at its scalar', () => {
    expect(lines(BASE.replace('    type: compat', '    type: compat\n    api_key: ${OPENAI_API_KEY}'))).toEqual([
      'gateway.yaml:4:14 providers[0].api_key references environment variable OPENAI_API_KEY, which is not set (use ${OPENAI_API_KEY:-default} for a fallback)',
    ]);
  });

  it('reports YAML syntax errors with line and column', () => {
    const [p] = problems('providers:\n  - id: mock\n   type: compat\n');
    expect(p).toMatchObject({ line: 3, path: '(yaml)' });
    expect(p.col).toBeGreaterThan(0);
    const [dup] = problems('server:\n  port: 1\n  port: 2\n');
    expect(formatProblem(dup)).toBe('gateway.yaml:3:3 (yaml) Map keys must be unique');
  });

  it('reports a model whose provider is not declared', () => {
    expect(lines(BASE.replace('provider: mock', 'provider: mokc'))).toEqual([
      'gateway.yaml:7:15 models[0].provider names provider "mokc", which is not declared in providers (mock)',
    ]);
  });

  it('reports duplicate ids and dangling account/group references', () => {
    const text = `${BASE}  - id: gpt-4o-mini
    provider: mock
accounts:
  - { id: bob, email: bob@example.com, group: vip }
keys:
  - { id: k1, account: carol, key_hash: "sha256:${'a'.repeat(64)}" }
`;
    expect(lines(text)).toEqual([
      'gateway.yaml:8:9 models[1].id duplicates id "gpt-4o-mini" of models[0]',
      'gateway.yaml:11:47 accounts[0].group names group "vip", which is not declared in groups (none declared)',
      'gateway.yaml:13:24 keys[0].account names account "carol", which is not declared in accounts (nor "admin")',
    ]);
  });

  it('reports model fallbacks that name no known model, or the model itself, at the entry', () => {
    const text = `providers:
  - id: mock
    type: compat
    endpoint: http://127.0.0.1:9999/v1
    models: [listed]
models:
  - id: gpt-4o-mini
    provider: mock
    fallbacks: [gpt-4o-mini, nope, mock/unlisted, other/x, mock/mini-upstream]
  - id: mini2
    provider: mock
    upstream_model: mini-upstream
    fallbacks: [mock/mini-upstream]
`;
    expect(lines(text)).toEqual([
      'gateway.yaml:9:17 models[0].fallbacks[0] names the model itself ("gpt-4o-mini")',
      'gateway.yaml:9:30 models[0].fallbacks[1] names "nope", which is neither a declared model id nor provider_id/model of a declared provider',
      'gateway.yaml:9:36 models[0].fallbacks[2] names "mock/unlisted", but provider "mock" does not list model "unlisted" and no model config names it',
      'gateway.yaml:9:51 models[0].fallbacks[3] names "other/x", which is neither a declared model id nor provider_id/model of a declared provider',
      'gateway.yaml:13:17 models[1].fallbacks[0] names the model itself ("mock/mini-upstream" is mini2\'s own provider and upstream model)',
    ]);
  });

  it('accepts model fallbacks naming other models, listed upstream models and each other (no chaining, so no cycle)', () => {
    const text = `providers:
  - id: mock
    type: compat
    endpoint: http://127.0.0.1:9999/v1
    models: [listed]
models:
  - id: a
    provider: mock
    fallbacks: [b, mock/listed, mock/b-upstream]
  - id: b
    provider: mock
    upstream_model: b-upstream
    fallbacks: [a]
`;
    expect(config(text).models.map((m) => m.fallbacks)).toEqual([['b', 'mock/listed', 'mock/b-upstream'], ['a']]);
  });

  it('refuses repeated, empty and too many model fallbacks', () => {
    expect(lines(`${BASE}    fallbacks: [x, x]\n`)).toEqual([expect.stringMatching(/^gateway\.yaml:8:\d+ models\[0\]\.fallbacks must NOT have duplicate items/)]);
    expect(lines(`${BASE}    fallbacks: [""]\n`)).toEqual([expect.stringMatching(/^gateway\.yaml:8:\d+ models\[0\]\.fallbacks\[0\] must NOT have fewer than 1 characters/)]);
    const eleven = Array.from({ length: 11 }, (_, i) => `mock/m${i}`).join(', ');
    expect(lines(`${BASE}    fallbacks: [${eleven}]\n`)).toEqual([expect.stringMatching(/models\[0\]\.fallbacks must NOT have more than 10 items/)]);
  });

  it('checks the pipeline: built-ins once, custom needs a module, upstream last', () => {
    expect(lines(`${BASE}pipeline: [auth, route, auth, upstream]\n`)).toEqual([
      'gateway.yaml:8:25 pipeline[2] "auth" is already listed at pipeline[0]; each built-in step may appear once',
    ]);
    expect(lines(`${BASE}pipeline: [auth, route]\n`)).toEqual([
      'gateway.yaml:8:18 pipeline[1] must be `upstream`: the pipeline has to end with the upstream step',
    ]);
    expect(lines(`${BASE}pipeline:\n  - name: audit\n  - upstream\n`)).toEqual([
      'gateway.yaml:9:11 pipeline[0].name "audit" is not a built-in step (log, auth, permission, route, rate-limit, cache, concurrency, upstream, semantic-cache, guardrails); give `module` for a custom plugin',
    ]);
    expect(lines(`${BASE}pipeline: [auth, authz, upstream]\n`)).toEqual([
      'gateway.yaml:8:18 pipeline[1] must be one of auth, permission, rate-limit, cache, route, upstream, log, concurrency, semantic-cache, guardrails',
    ]);
  });

  it('reports several problems at once, in file order', () => {
    const text = BASE.replace('type: compat', 'type: nope').replace('provider: mock', 'provider: 42') + 'api:\n  rate_limit: -1\n';
    expect(problems(text).map((p) => `${p.line}:${p.col} ${p.path}`)).toEqual([
      '3:11 providers[0].type',
      '7:15 models[0].provider',
      '9:15 api.rate_limit',
    ]);
  });
});

describe('loadConfigText values', () => {
  it('fills every default', () => {
    const c = config(BASE);
    expect(c.server).toEqual({ host: '0.0.0.0', port: 8080, body_limit: 4194304, workers: 1, trusted_proxies: [], allow_link_local_upstreams: false });
    expect(c.system).toEqual({ region: 'local', data_residency: 'local' });
    expect(c.api).toEqual({ rate_limit: 0, rate_limit_period: 60, max_concurrent_requests: 0, queue_timeout_ms: 30000 });
    expect(c.limits).toEqual({ max_context_length: 128000, default_temperature: 0.7 });
    expect(c.features).toEqual({ streaming: true, function_calling: true, vision: true });
    expect(c.timeouts).toEqual({ connect: 10000, first_token: 90000, idle: 30000, total: 600000 });
    expect(c.routing).toEqual({
      retries: 1, backoff_ms: 200, backoff_max_ms: 2000, max_retry_after_ms: 10000,
      breaker: { failure_threshold: 5, cooldown_ms: 5000, max_cooldown_ms: 20000 },
      strategy: 'weighted',
      hedge: { enabled: true, after_ms: 5000, multiple: 2, min_ms: 1000 },
      learned_deadline: { enabled: true, multiple: 3, min_ms: 10000 },
      min_samples: 20,
    });
    expect(c.providers[0]).toEqual({
      id: 'mock', name: 'mock', type: 'compat', status: 'active', endpoint: 'http://127.0.0.1:9999/v1', models: [], quota_limit: 0,
    });
    expect(c.models[0]).toEqual({
      id: 'gpt-4o-mini', name: 'gpt-4o-mini', provider: 'mock', context_length: 128000, input_price: 0, output_price: 0,
      capabilities: [], status: 'active',
    });
    expect([c.groups, c.keys, c.accounts, c.oauth]).toEqual([[], [], [], { clients: [], rate_limit: 600 }]);
    expect(c.settings).toEqual({
      account: { timezone: 'UTC', language: 'en', currency: 'CNY' },
      notifications: { email_usage_alert: false, email_low_balance: false, email_weekly_report: false, balance_threshold: 0 },
      api: { default_model: null, default_temperature: 0.7, stream_by_default: false },
      security: { ip_whitelist_enabled: false, allowed_ips: [], request_logging: true },
    });
    expect(c.pipeline.map((p) => p.name)).toEqual(['log', 'auth', 'permission', 'route', 'rate-limit', 'cache', 'concurrency', 'upstream']);
    expect(c.pipeline[0]).toEqual({ name: 'log', enabled: true, options: {} });
    expect(c.management).toEqual({ write_back: true, rate_limit: 600, max_keys_per_account: 100, max_bytes_per_account: 262144, max_config_bytes: 4194304 });
    expect(c.logs).toEqual({ retention_days: 30, batch_size: 200, flush_interval_ms: 50, queue_max: 10000 });
    expect(c.responses).toEqual({ ttl_seconds: 86400, store_by_default: true });
    expect(c.metrics).toEqual({ enabled: true, public: false });
  });

  it('fills defaults of nested resources', () => {
    const c = config(`${BASE}groups:\n  - id: g\naccounts:\n  - { id: a, email: a@example.com, group: g }\nkeys:\n  - { id: k, account: a, key_hash: "sha256:${'0'.repeat(64)}" }\noauth:\n  clients:\n    - { client_id: c, client_secret: s, redirect_uris: ["http://localhost/cb"] }\n`);
    expect(c.groups[0]).toEqual({ id: 'g', name: 'g', description: '', priority: 0, quota_limit: 0, models: [], features: [] });
    expect(c.accounts[0]).toEqual({ id: 'a', name: 'a', email: 'a@example.com', role: 'member', group: 'g' });
    expect(c.keys[0]).toMatchObject({ name: 'k', status: 'active', permissions: { models: [], rate_limit: 0 } });
    expect(c.oauth.clients[0].scopes).toEqual(['read:api', 'write:api', 'read:user', 'write:user', 'read:billing']);
  });

  it('interpolates with defaults and types plain scalars from the environment', () => {
    const text = BASE.replace('endpoint: http://127.0.0.1:9999/v1', 'endpoint: ${UP:-http://127.0.0.1:9999/v1}') +
      'server:\n  port: ${GW_PORT}\n  host: "${GW_HOST:-::}"\nfeatures:\n  vision: ${VISION:-false}\n';
    const c = config(text, { GW_PORT: '9090' });
    expect(c.providers[0].endpoint).toBe('http://127.0.0.1:9999/v1');
    expect(c.server.port).toBe(9090);
    expect(c.server.host).toBe('::');
    expect(c.features.vision).toBe(false);
    expect(config(text, { GW_PORT: '1', UP: 'https://up.example/v1' }).providers[0].endpoint).toBe('https://up.example/v1');
  });

  it('keeps a quoted interpolated number a string, so the type error is still reported', () => {
    expect(lines(`${BASE}server:\n  port: "\${GW_PORT}"\n`, { GW_PORT: '9090' })).toEqual([
      'gateway.yaml:9:9 server.port must be an integer',
    ]);
  });

  it('takes PORT, HOST and GATEWAY_BASE_URL from the environment when the file omits them', () => {
    const env = { PORT: '3000', HOST: '127.0.0.1', GATEWAY_BASE_URL: 'https://gw.example.com' };
    expect(config(BASE, env).server).toMatchObject({ port: 3000, host: '127.0.0.1', base_url: 'https://gw.example.com' });
    expect(config(`${BASE}server: { port: 4000 }\n`, env).server.port).toBe(4000);
  });

  it('normalises pipeline objects', () => {
    const c = config(`${BASE}pipeline:\n  - auth\n  - { name: cache, enabled: false, options: { ttl: 5 } }\n  - module: ./plugins/audit-trail.ts\n  - upstream\n`);
    expect(c.pipeline).toEqual([
      { name: 'auth', enabled: true, options: {} },
      { name: 'cache', enabled: false, options: { ttl: 5 } },
      { name: 'audit-trail', module: './plugins/audit-trail.ts', enabled: true, options: {} },
      { name: 'upstream', enabled: true, options: {} },
    ]);
  });

  it('accepts an empty file as all defaults', () => {
    expect(config('# nothing yet\n').providers).toEqual([]);
  });
});

describe('loadConfigFile', () => {
  it('accepts the sample gateway.yaml', async () => {
    const r = await loadConfigFile(path.join(process.cwd(), 'gateway.yaml'), {});
    expect(r.ok ? [] : r.problems.map(formatProblem)).toEqual([]);
    if (!r.ok) return;
    expect(r.config.providers[0]).toMatchObject({ id: 'mock', endpoint: 'http://127.0.0.1:9999/v1', api_key: 'mock-key', models: ['gpt-4o-mini', 'gpt-4o'] });
    expect(r.config.keys[0]).toMatchObject({ account: 'demo', key_hash: 'sha256:f6ac88c55c9d07d2a09b6dcfb38a6f327ba04d4744bdebe1b3abc4008a5ab60e' });
    expect(r.config.pipeline.map((p) => p.name)).toEqual(['log', 'auth', 'permission', 'route', 'rate-limit', 'cache', 'concurrency', 'upstream']);
  });

  it('accepts the multi-provider example once its variables are set', async () => {
    const file = path.join(process.cwd(), 'config/examples/multi-provider.yaml');
    const env = { OPENAI_API_KEY: 'a', VENDOR_B_API_KEY: 'b', VENDOR_C_API_KEY: 'c', VENDOR_D_API_KEY: 'd', VENDOR_D_ENDPOINT: 'https://d.example.com' };
    const r = await loadConfigFile(file, env);
    expect(r.ok ? [] : r.problems.map(formatProblem)).toEqual([]);
    const missing = await loadConfigFile(file, { ...env, VENDOR_C_API_KEY: undefined });
    expect(missing.ok ? [] : missing.problems.map((p) => p.path)).toEqual(['providers[2].api_key']);
  });

  it('reports an unreadable file as a problem, not a throw', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gw-load-'));
    try {
      const r = await loadConfigFile(path.join(dir, 'missing.yaml'), {});
      expect(r).toMatchObject({ ok: false, problems: [{ line: 1, col: 1, message: 'cannot be read: file not found' }] });
      await writeFile(path.join(dir, 'gateway.yaml'), BASE);
      expect((await loadConfigFile(path.join(dir, 'gateway.yaml'), {})).ok).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
