/**
 * The deployment files: deploy/kubernetes renders with `kubectl kustomize`, every object it makes
 * validates against the Kubernetes schemas (kubernetes-models), the Deployment has what a
 * production rollout needs, the ConfigMap's gateway.yaml passes `npm run validate`, every `${VAR}`
 * it needs comes from the pod's environment, and the compose file runs the multi-instance setup
 * and validates against the Compose Specification's schema (the one Debian's docker-compose ships,
 * which .ci/run installs; skipped without it).
 * The image itself is built and run by test/container (npm run test:container).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { shutdownBudgetMs } from '../../src/boot/shutdown-budget.ts';
import { DEMO_KEY, startMockUpstream, startTestGateway } from '../_setup.ts';

const run = promisify(execFile);

type Obj = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; [key: string]: any };

const MODELS: Record<string, { new (data: any): { validate(): void } }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

function validateObject(obj: Obj) {
  const Model = MODELS[`${obj.apiVersion}/${obj.kind}`];
  if (!Model) throw new Error(`no schema for ${obj.apiVersion} ${obj.kind}`);
  new Model(obj).validate();
}

/** The `${NAME}` references of a config text that have no default (those must be set). */
const requiredVars = (text: string) =>
  [...new Set([...text.replace(/^\s*#.*$/gm, '').matchAll(/(?<!\$)\$\{(?!secret:)([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!))];

/**
 * What a SIGTERM may take, in seconds, for a container environment: the sum of the gateway's own
 * deadlines (src/boot/shutdown-budget.ts: drain, ending the rest, the log flush and spill, closing
 * the stores, the trace export), with GATEWAY_DRAIN_TIMEOUT_MS and GATEWAY_FLUSH_TIMEOUT_MS as set.
 */
const shutdownSeconds = (env: Record<string, string | undefined>) => shutdownBudgetMs(env) / 1000;
/** What a grace period keeps beyond that: the event loop and a busy node are not exact. */
const MARGIN_SECONDS = 5;

/** The names of the metrics a real gateway exports after a chat call (the metrics.yaml fixture). */
async function exportedMetrics(): Promise<Set<string>> {
  const mock = await startMockUpstream();
  const gw = await startTestGateway('metrics.yaml', { MOCK_URL: `${mock.url}/v1`, MOCK_BASE: mock.url });
  try {
    await fetch(`${gw.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    }).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 100));
    const text = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: 'Bearer metrics-secret' } })).text();
    return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
  } finally {
    await gw.close();
    await mock.close();
  }
}

/** The gateway_* metric names a PromQL expression reads (a histogram's _bucket/_sum/_count as the histogram). */
const metricsIn = (expr: string) =>
  [...expr.matchAll(/\b(gateway_[a-z_]+?)(?:_bucket|_sum|_count)?\b(?=[{[(\s)]|$)/g)].map((m) => m[1]!);

describe('deploy/kubernetes', { timeout: 60_000 }, () => {
  let objects: Obj[];

  it('renders with kubectl kustomize', async () => {
    const { stdout } = await run('kubectl', ['kustomize', 'deploy/kubernetes'], { maxBuffer: 16 << 20 });
    objects = parseAllDocuments(stdout).map((doc) => doc.toJS()) as Obj[];
    expect(objects.map((o) => o.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'NetworkPolicy', 'PodDisruptionBudget', 'Service']);
  });

  it('every object validates against the Kubernetes schemas (and the example Secret too)', async () => {
    for (const obj of objects) expect(() => validateObject(obj), `${obj.kind} ${obj.metadata.name}`).not.toThrow();
    validateObject(parse(await readFile('deploy/kubernetes/secret.example.yaml', 'utf8')));
    // The check has teeth: a wrong type is refused.
    const broken = structuredClone(objects.find((o) => o.kind === 'Deployment')!);
    broken.spec.replicas = 'two';
    expect(() => validateObject(broken)).toThrow(/replicas/);
  });

  it('the Deployment: replicas left to the autoscaler (2 to 10), health probes, measured resources, non-root, read-only root, no capabilities', () => {
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    // A count here would scale the fleet back to it on every GitOps sync.
    expect(deployment.spec.replicas).toBeUndefined();
    expect(objects.find((o) => o.kind === 'HorizontalPodAutoscaler')!.spec).toMatchObject({ minReplicas: 2, maxReplicas: 10 });
    // A drain takes one pod at a time, whatever the count.
    expect(objects.find((o) => o.kind === 'PodDisruptionBudget')!.spec).toMatchObject({ maxUnavailable: 1 });
    expect(objects.find((o) => o.kind === 'PodDisruptionBudget')!.spec.minAvailable).toBeUndefined();
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      expect(container[probe].httpGet, probe).toMatchObject({ path: '/v1/system/health', port: 'http' });
    }
    expect(container.resources.requests.memory).toBeDefined();
    expect(container.resources.limits.memory).toBeDefined();
    expect(container.resources.requests.cpu).toBeDefined();
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    expect(container.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    // The config directory is mounted whole (a subPath never sees kubelet's symlink swap), read-only.
    const configMount = container.volumeMounts.find((m: any) => m.mountPath === '/etc/gateway');
    expect(configMount).toMatchObject({ readOnly: true });
    expect(configMount.subPath).toBeUndefined();
    const configVolume = pod.volumes.find((v: any) => v.name === configMount.name);
    expect(configVolume.configMap.name).toBe(objects.find((o) => o.kind === 'ConfigMap')!.metadata.name);
    // Only the data directory and /tmp are writable.
    expect(container.volumeMounts.filter((m: any) => !m.readOnly).map((m: any) => m.mountPath).sort()).toEqual(['/tmp', '/var/lib/gateway']);
    // Redis and PostgreSQL by URL, from the Secret.
    const env = Object.fromEntries(container.env.map((e: any) => [e.name, e]));
    for (const name of ['GATEWAY_MASTER_KEY', 'REDIS_URL', 'DATABASE_URL']) expect(env[name]?.valueFrom?.secretKeyRef?.name, name).toBe('llm-gateway');
  });

  it('a SIGTERM ends within the grace period, with margin: preStop plus every shutdown deadline of the gateway', () => {
    const pod = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec;
    const [container] = pod.containers;
    const preStop = container.lifecycle.preStop.exec.command;
    expect(preStop[0]).toBe('sleep');
    const env = Object.fromEntries(container.env.map((e: any) => [e.name, e.value]));
    expect(Number(preStop[1]) + shutdownSeconds(env) + MARGIN_SECONDS).toBeLessThanOrEqual(pod.terminationGracePeriodSeconds);
    // The sum has teeth: the trace export's 5 s and the spill count (the old 60 s did not hold them).
    expect(Number(preStop[1]) + shutdownSeconds(env)).toBeGreaterThan(60);
    // A longer drain set in the manifest would need a longer grace period.
    expect(Number(preStop[1]) + shutdownSeconds({ ...env, GATEWAY_DRAIN_TIMEOUT_MS: '60000' })).toBeGreaterThan(pod.terminationGracePeriodSeconds);
  });

  it('metrics on their own port, open to the monitoring namespace only; the API port to everyone', () => {
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    const [container] = deployment.spec.template.spec.containers;
    const ports = Object.fromEntries(container.ports.map((p: any) => [p.name, p.containerPort]));
    const env = Object.fromEntries(container.env.map((e: any) => [e.name, e.value]));
    expect(Number(env.GATEWAY_METRICS_PORT)).toBe(ports.metrics);
    expect(ports.metrics).not.toBe(ports.http);
    expect(deployment.spec.template.metadata.annotations['prometheus.io/port']).toBe(String(ports.metrics));
    const policy = objects.find((o) => o.kind === 'NetworkPolicy')!;
    const labels = deployment.spec.template.metadata.labels;
    expect(Object.entries(policy.spec.podSelector.matchLabels).every(([k, v]) => labels[k] === v)).toBe(true);
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    const rule = (port: string) => policy.spec.ingress.find((r: any) => r.ports.some((p: any) => p.port === port));
    expect(rule('http').from).toBeUndefined();
    expect(rule('metrics').from).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]);
    expect(rule('metrics')).not.toBe(rule('http'));
    // The Service publishes the API port only.
    expect(objects.find((o) => o.kind === 'Service')!.spec.ports.map((p: any) => p.targetPort)).toEqual(['http']);
  });

  it('the autoscaler removes one pod at a time, slowly enough for long streams', () => {
    const { scaleDown } = objects.find((o) => o.kind === 'HorizontalPodAutoscaler')!.spec.behavior;
    expect(scaleDown.stabilizationWindowSeconds).toBeGreaterThanOrEqual(300);
    expect(scaleDown.policies).toEqual([{ type: 'Pods', value: 1, periodSeconds: expect.any(Number) }]);
    // A pod removed drains for up to GATEWAY_DRAIN_TIMEOUT_MS: the next one goes well after.
    expect(scaleDown.policies[0].periodSeconds).toBeGreaterThanOrEqual(shutdownSeconds({}));
  });

  it('the Service, the PodDisruptionBudget and the HorizontalPodAutoscaler select and target the Deployment', () => {
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    const labels = deployment.spec.template.metadata.labels;
    const selects = (selector: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
    expect(selects(objects.find((o) => o.kind === 'Service')!.spec.selector)).toBe(true);
    expect(selects(objects.find((o) => o.kind === 'PodDisruptionBudget')!.spec.selector.matchLabels)).toBe(true);
    const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler')!;
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: deployment.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
  });

  it("the ConfigMap's gateway.yaml passes npm run validate, and every ${VAR} it needs is in the pod's environment", async () => {
    const configMap = objects.find((o) => o.kind === 'ConfigMap')!;
    const text: string = configMap.data['gateway.yaml'];
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    const envNames = deployment.spec.template.spec.containers[0].env.map((e: any) => e.name);
    const needed = requiredVars(text);
    expect(needed).toContain('UPSTREAM_API_KEY');
    for (const name of needed) expect(envNames, `\${${name}} has no default`).toContain(name);
    const dir = await mkdtemp(join(tmpdir(), 'gw-k8s-'));
    try {
      const file = join(dir, 'gateway.yaml');
      await writeFile(file, text);
      const env = { ...process.env, ...Object.fromEntries(needed.map((name) => [name, 'from-the-secret'])) };
      const { stdout } = await run('npm', ['run', '--silent', 'validate', '--', file], { env });
      expect(stdout).toContain('ok:');
      // And a broken edit is reported, as it would be refused by a running pod.
      await writeFile(file, text.replace('type: compat', 'type: nonsense'));
      const failed = await run('npm', ['run', '--silent', 'validate', '--', file], { env }).catch((error) => error);
      expect(failed.code).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("the image's defaults match the manifest: config path, data directory, user", async () => {
    const dockerfile = await readFile('Dockerfile', 'utf8');
    expect(dockerfile).toMatch(/GATEWAY_CONFIG=\/etc\/gateway\/gateway\.yaml/);
    expect(dockerfile).toMatch(/GATEWAY_DATA_DIR=\/var\/lib\/gateway/);
    expect(dockerfile).toMatch(/^USER 10001:10001$/m);
    expect(dockerfile).toMatch(/^ARG BASE_IMAGE=docker\.io\/library\/debian:trixie-slim$/m);
    // Both stages on the one base argument (so a digest given there pins both), a health check, the OCI labels.
    expect(dockerfile.match(/^FROM .*$/gm)).toEqual(['FROM ${BASE_IMAGE} AS build', 'FROM ${BASE_IMAGE}']);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n\s+CMD \["node", "-e", ".*\/v1\/system\/health/m);
    for (const label of ['title', 'description', 'version', 'revision', 'source', 'licenses']) {
      expect(dockerfile, label).toMatch(new RegExp(`org\\.opencontainers\\.image\\.${label}="[^"]*"`));
    }
  });
});

describe('deploy/kubernetes-roll-on-config (the overlay that rolls the pods on a config change)', { timeout: 60_000 }, () => {
  const render = async (dir: string) => {
    const { stdout } = await run('kubectl', ['kustomize', dir], { maxBuffer: 16 << 20 });
    return parseAllDocuments(stdout).map((doc) => doc.toJS()) as Obj[];
  };
  const configMapOf = (objects: Obj[]) => {
    const maps = objects.filter((o) => o.kind === 'ConfigMap');
    expect(maps).toHaveLength(1);
    return maps[0]!;
  };
  const mountedName = (objects: Obj[]) =>
    objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.volumes.find((v: any) => v.name === 'config').configMap.name;

  it("renders the base's objects, valid, with one hash-named ConfigMap that the pods mount, holding the base's sample", async () => {
    const objects = await render('deploy/kubernetes-roll-on-config');
    const base = await render('deploy/kubernetes');
    expect(objects.map((o) => o.kind).sort()).toEqual(base.map((o) => o.kind).sort());
    for (const obj of objects) expect(() => validateObject(obj), `${obj.kind} ${obj.metadata.name}`).not.toThrow();
    const configMap = configMapOf(objects);
    expect(configMap.metadata.name).toMatch(/^llm-gateway-config-rolled-[a-z0-9]{10}$/);
    expect(mountedName(objects)).toBe(configMap.metadata.name);
    // The base's sample below its own header comment.
    const body = (text: string) => text.replace(/^(#.*\n)+/, '');
    expect(body(configMap.data['gateway.yaml'])).toBe(body(await readFile('deploy/kubernetes/gateway.yaml', 'utf8')));
    // The base's in-place ConfigMap keeps its fixed name (hot reload).
    expect(mountedName(base)).toBe('llm-gateway-config');
  });

  it('an edit of gateway.yaml renames the ConfigMap, so the pod template changes and the Deployment rolls', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-k8s-roll-'));
    try {
      await cp('deploy', join(dir, 'deploy'), { recursive: true });
      const overlay = join(dir, 'deploy/kubernetes-roll-on-config');
      const before = mountedName(await render(overlay));
      const file = join(overlay, 'gateway.yaml');
      await writeFile(file, `${await readFile(file, 'utf8')}\n# an edit\n`);
      const after = await render(overlay);
      expect(mountedName(after)).not.toBe(before);
      expect(configMapOf(after).metadata.name).toBe(mountedName(after));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('deploy/overlays/monitoring: the base with the monitoring component', { timeout: 90_000 }, () => {
  let objects: Obj[];
  let exported: Set<string>;
  const rules = () => objects.find((o) => o.kind === 'PrometheusRule')!.spec.groups.flatMap((g: any) => g.rules);

  beforeAll(async () => {
    const { stdout } = await run('kubectl', ['kustomize', 'deploy/overlays/monitoring'], { maxBuffer: 16 << 20 });
    objects = parseAllDocuments(stdout).map((doc) => doc.toJS()) as Obj[];
    exported = await exportedMetrics();
  });

  it('renders the base plus a PodMonitor and a PrometheusRule (the CRDs stay out of the base)', async () => {
    expect(objects.map((o) => o.kind).sort()).toEqual(
      ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'NetworkPolicy', 'PodDisruptionBudget', 'PodMonitor', 'PrometheusRule', 'Service'],
    );
    for (const obj of objects.filter((o) => o.apiVersion !== 'monitoring.coreos.com/v1')) validateObject(obj);
    const { stdout } = await run('kubectl', ['kustomize', 'deploy/kubernetes'], { maxBuffer: 16 << 20 });
    expect(stdout).not.toContain('monitoring.coreos.com');
  });

  it('the PodMonitor scrapes the metrics port of the gateway pods', () => {
    const monitor = objects.find((o) => o.kind === 'PodMonitor')!;
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    const labels = deployment.spec.template.metadata.labels;
    expect(Object.entries(monitor.spec.selector.matchLabels).every(([k, v]) => labels[k] === v)).toBe(true);
    const [endpoint] = monitor.spec.podMetricsEndpoints;
    expect(endpoint).toMatchObject({ port: 'metrics', path: '/metrics' });
    expect(deployment.spec.template.spec.containers[0].ports.map((p: any) => p.name)).toContain('metrics');
  });

  it('every alert has a summary, a description and a runbook line, and the topics an operator needs are covered', () => {
    const all = rules();
    expect(all.length).toBeGreaterThanOrEqual(8);
    for (const rule of all) {
      expect(rule.alert, JSON.stringify(rule)).toMatch(/^LLMGateway[A-Za-z]+$/);
      expect(typeof rule.expr).toBe('string');
      for (const key of ['summary', 'description', 'runbook']) expect(rule.annotations?.[key], `${rule.alert} ${key}`).toBeTruthy();
      expect(['warning', 'critical']).toContain(rule.labels.severity);
      if (rule.for) expect(rule.for).toMatch(/^\d+[smh]$/);
      // Balanced parentheses and braces: a cheap guard against a broken edit of an expression.
      for (const [open, close] of [['(', ')'], ['{', '}'], ['[', ']']]) expect(rule.expr.split(open).length, rule.alert).toBe(rule.expr.split(close).length);
    }
    const exprs = (name: string) => all.filter((r: any) => metricsIn(r.expr).includes(name)).map((r: any) => r.alert);
    expect(exprs('gateway_requests_total')).not.toEqual([]); // error ratio
    expect(exprs('gateway_upstream_errors_total')).not.toEqual([]); // upstream down
    expect(all.some((r: any) => r.expr.includes('reason="circuit_open"'))).toBe(true); // breaker open
    expect(exprs('gateway_time_to_first_token_seconds')).not.toEqual([]); // TTFT SLO
    expect(exprs('gateway_config_last_reload_success')).not.toEqual([]);
    expect(exprs('gateway_log_queue_dropped_total')).not.toEqual([]);
    expect(exprs('gateway_log_spilled_total')).not.toEqual([]);
    expect(exprs('gateway_log_queue_depth')).not.toEqual([]);
    expect(exprs('gateway_inflight_requests')).not.toEqual([]); // saturation
  });

  it('every metric the rules and the autoscaler read is one a running gateway exports', () => {
    const used = new Set(rules().flatMap((r: any) => metricsIn(r.expr)));
    const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler')!;
    const pods = hpa.spec.metrics.filter((m: any) => m.type === 'Pods').map((m: any) => m.pods.metric.name);
    expect(pods).toEqual(['gateway_inflight_requests']);
    for (const name of [...used, ...pods]) expect(exported, name).toContain(name);
    // The check has teeth: a misspelt metric is not exported.
    expect(exported).not.toContain('gateway_inflight_request');
  });

  it('the autoscaler keeps CPU and adds the requests in flight per pod, below the per-pod limit', async () => {
    const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler')!;
    expect(hpa.spec.metrics.map((m: any) => m.type)).toEqual(['Resource', 'Pods']);
    const target = hpa.spec.metrics[1].pods.target;
    expect(target.type).toBe('AverageValue');
    const configMap = objects.find((o) => o.kind === 'ConfigMap')!;
    const limit = parse(configMap.data['gateway.yaml']).api.max_concurrent_requests;
    expect(Number(target.averageValue)).toBeLessThan(limit);
    expect(hpa.spec.behavior.scaleDown.policies).toEqual([{ type: 'Pods', value: 1, periodSeconds: 300 }]);
  });
});

/** The Compose Specification's JSON schema, as Debian's docker-compose package ships it. */
const COMPOSE_SCHEMA = '/usr/lib/python3/dist-packages/compose/config/compose_spec.json';
const dockerCompose = await run('docker-compose', ['version']).then(
  () => true,
  () => false,
);

describe('compose.yaml', () => {
  const services = async () => parse(await readFile('compose.yaml', 'utf8'), { merge: true }).services;

  it.skipIf(!existsSync(COMPOSE_SCHEMA))('validates against the Compose Specification schema', async () => {
    // Its `id`s (draft-04's spelling, only labels here) are dropped; its formats are Compose's own:
    // the durations checked, the rest by the schema's types.
    const schema = JSON.parse(await readFile(COMPOSE_SCHEMA, 'utf8'), (key, value) => (key === 'id' && typeof value === 'string' ? undefined : value));
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateSchema: false });
    ajv.addFormat('duration', /^(\d+(\.\d+)?(us|ms|s|m|h))+$/);
    for (const name of ['ports', 'expose', 'subnet_ip_address']) ajv.addFormat(name, true);
    const validate = ajv.compile(schema);
    const compose = parse(await readFile('compose.yaml', 'utf8'), { merge: true });
    expect(validate(compose), JSON.stringify(validate.errors, null, 1)).toBe(true);
    // The check has teeth: a misspelt key, and a grace period that is no duration, are refused.
    const gateway = compose.services['gateway-1'];
    expect(validate({ ...compose, services: { ...compose.services, 'gateway-1': { ...gateway, restat: 'always' } } })).toBe(false);
    expect(validate({ ...compose, services: { ...compose.services, 'gateway-1': { ...gateway, stop_grace_period: 'seventy' } } })).toBe(false);
  });

  it.skipIf(!dockerCompose)('`docker-compose config` reads it: merge keys and ${VAR} interpolation resolved, the master key required', async () => {
    const { stdout } = await run('docker-compose', ['-f', 'compose.yaml', 'config'], { env: { ...process.env, GATEWAY_MASTER_KEY: 'k'.repeat(48) } });
    const resolved = parse(stdout);
    expect(Object.keys(resolved.services).sort()).toEqual(['gateway-1', 'gateway-2', 'mock-upstream', 'postgres', 'redis']);
    expect(resolved.services['gateway-2'].environment.GATEWAY_MASTER_KEY).toBe('k'.repeat(48));
    expect(resolved.services['gateway-1'].environment.MOCK_UPSTREAM_URL).toBe('http://mock-upstream:9999/v1');
    const { GATEWAY_MASTER_KEY: _unset, ...withoutKey } = process.env;
    await expect(run('docker-compose', ['-f', 'compose.yaml', 'config', '-q'], { env: withoutKey })).rejects.toMatchObject({
      stderr: expect.stringContaining('set GATEWAY_MASTER_KEY'),
    });
  });

  it('runs two gateway replicas on one Redis, one PostgreSQL and the mock upstream, read-only, with the config mounted read-only', async () => {
    const { 'gateway-1': first, 'gateway-2': second, redis, postgres, 'mock-upstream': mock } = await services();
    expect(redis.image).toMatch(/redis/);
    // Persistent: counters and OAuth state survive a Redis restart.
    expect(redis.command.join(' ')).toMatch(/--appendonly yes/);
    expect(redis.volumes).toEqual([expect.stringMatching(/:\/data$/)]);
    expect(postgres.image).toMatch(/postgres/);
    // Two replicas, each with its own host port, and otherwise alike.
    expect([first.ports, second.ports]).toEqual([['8080:8080'], ['8081:8080']]);
    expect({ ...first, ports: undefined }).toEqual({ ...second, ports: undefined });
    const gateway = first;
    expect(gateway.read_only).toBe(true);
    expect(gateway.environment.REDIS_URL).toMatch(/^redis:\/\/redis:6379/);
    expect(gateway.environment.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
    expect(gateway.environment.MOCK_UPSTREAM_URL).toContain('http://mock-upstream:9999/v1');
    expect(gateway.volumes.some((v: string) => v.endsWith(':/etc/gateway/gateway.yaml:ro'))).toBe(true);
    expect(Object.keys(gateway.depends_on).sort()).toEqual(['mock-upstream', 'postgres', 'redis']);
    // Replicas share the OAuth keys through Redis, sealed under the master key: both are set.
    expect(gateway.environment.GATEWAY_MASTER_KEY).toBeTruthy();
    // The mock upstream: the repository's, run by the image's tsx (built in with TYPESCRIPT_PLUGINS).
    expect(mock.build.args.TYPESCRIPT_PLUGINS).toBe('true');
    expect(mock.volumes).toEqual(['./test/mock-upstream:/app/mock-upstream:ro']);
    expect(mock.entrypoint).toEqual(['node', '/app/node_modules/tsx/dist/cli.mjs', '/app/mock-upstream/main.ts']);
    await expect(readFile('node_modules/tsx/dist/cli.mjs')).resolves.toBeTruthy();
  });

  it('uses only what Docker Compose and podman-compose both run, with the images pinned by digest', async () => {
    const text = (await readFile('compose.yaml', 'utf8')).replace(/#.*$/gm, '');
    // podman 4 knows no host-gateway, podman-compose 1.0 maps no replicas onto a port range.
    expect(text).not.toMatch(/host-gateway|extra_hosts|replicas/);
    for (const [name, service] of Object.entries<any>(await services())) {
      if (!service.build) expect(service.image, name).toMatch(/^docker\.io\/library\/[a-z]+:[\w.-]+@sha256:[0-9a-f]{64}$/);
      // podman-compose 1.0 quotes a CMD list into one word: CMD-SHELL or NONE only.
      const check = service.healthcheck?.test;
      if (check) expect(['CMD-SHELL', 'NONE'], name).toContain(check[0]);
    }
  });

  it('a SIGTERM ends within stop_grace_period, with margin: every shutdown deadline of the gateway', async () => {
    const { 'gateway-1': gateway } = await services();
    const grace = /^(\d+)s$/.exec(gateway.stop_grace_period);
    expect(grace, 'stop_grace_period in seconds').not.toBeNull();
    expect(shutdownSeconds(gateway.environment) + MARGIN_SECONDS).toBeLessThanOrEqual(Number(grace![1]));
  });
});

describe('deploy/grafana dashboard', { timeout: 90_000 }, () => {
  it('charts only metrics the gateway exports, with the panels an operator looks for', async () => {
    const dashboard = JSON.parse(await readFile('deploy/grafana/llm-gateway-dashboard.json', 'utf8'));
    const panels = dashboard.panels.filter((p: any) => p.type !== 'row');
    const exprs: string[] = panels.flatMap((p: any) => p.targets.map((t: any) => t.expr));
    const used = new Set(exprs.flatMap(metricsIn));
    const exported = await exportedMetrics();
    expect(used.size).toBeGreaterThanOrEqual(10);
    for (const name of used) expect(exported, name).toContain(name);
    const titles = panels.map((p: any) => p.title.toLowerCase()).join(' | ');
    for (const word of ['requests per second', 'error ratio', 'request duration', 'time to first token', 'tokens', 'cost', 'fallbacks', 'breaker', 'hedge', 'log queue depth']) {
      expect(titles).toContain(word);
    }
    // What hedging does and costs: how often, how often the hedge wins, the tokens the losers cost.
    for (const name of ['gateway_hedges_total', 'gateway_hedge_wins_total', 'gateway_hedge_tokens_total']) expect(used, name).toContain(name);
    expect(exprs.some((e) => /gateway_hedge_wins_total[^/]*\/[^/]*gateway_hedges_total/.test(e)), 'a win ratio').toBe(true);
    expect(dashboard.templating.list.map((v: any) => v.name)).toContain('datasource');
  });
});
