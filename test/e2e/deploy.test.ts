/**
 * The deployment files: deploy/kubernetes renders with `kubectl kustomize`, every object it makes
 * validates against the Kubernetes schemas (kubernetes-models), the Deployment has what a
 * production rollout needs, the ConfigMap's gateway.yaml passes `npm run validate`, every `${VAR}`
 * it needs comes from the pod's environment, and the compose file runs the multi-instance setup.
 * The image itself is built and run by test/container (npm run test:container).
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { DEFAULT_DRAIN_TIMEOUT_MS } from '../../src/boot/gateway.ts';
import { DEFAULT_CLOSE_TIMEOUT_MS } from '../../src/features/logs/queue.ts';
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
 * What a SIGTERM may take, in seconds, for a container environment: the drain deadline
 * (GATEWAY_DRAIN_TIMEOUT_MS or the default), then up to 4 s to end what is left (src/boot/gateway.ts),
 * 1 s for a log retention pass, the call log's flush deadline (GATEWAY_FLUSH_TIMEOUT_MS, a failing
 * store retried before the rows are spilled) and 3 s to close the store (src/features/logs/service.ts).
 */
const shutdownSeconds = (env: Record<string, string | undefined>) =>
  Number(env.GATEWAY_DRAIN_TIMEOUT_MS ?? DEFAULT_DRAIN_TIMEOUT_MS) / 1000 + 4 + 1 + Number(env.GATEWAY_FLUSH_TIMEOUT_MS ?? DEFAULT_CLOSE_TIMEOUT_MS) / 1000 + 3;

describe('deploy/kubernetes', { timeout: 60_000 }, () => {
  let objects: Obj[];

  it('renders with kubectl kustomize', async () => {
    const { stdout } = await run('kubectl', ['kustomize', 'deploy/kubernetes'], { maxBuffer: 16 << 20 });
    objects = parseAllDocuments(stdout).map((doc) => doc.toJS()) as Obj[];
    expect(objects.map((o) => o.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Service']);
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

  it('a SIGTERM ends within the grace period: preStop, the drain deadline, ending the rest and the log flush', () => {
    const pod = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec;
    const [container] = pod.containers;
    const preStop = container.lifecycle.preStop.exec.command;
    expect(preStop[0]).toBe('sleep');
    const env = Object.fromEntries(container.env.map((e: any) => [e.name, e.value]));
    expect(Number(preStop[1]) + shutdownSeconds(env)).toBeLessThanOrEqual(pod.terminationGracePeriodSeconds);
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

describe('compose.yaml', () => {
  const services = async () => parse(await readFile('compose.yaml', 'utf8'), { merge: true }).services;

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

  it('a SIGTERM ends within stop_grace_period: the drain deadline, ending the rest and the log flush', async () => {
    const { 'gateway-1': gateway } = await services();
    const grace = /^(\d+)s$/.exec(gateway.stop_grace_period);
    expect(grace, 'stop_grace_period in seconds').not.toBeNull();
    expect(shutdownSeconds(gateway.environment)).toBeLessThanOrEqual(Number(grace![1]));
  });
});

describe('deploy/grafana dashboard', { timeout: 90_000 }, () => {
  it('charts only metrics the gateway exports, with the panels an operator looks for', async () => {
    const dashboard = JSON.parse(await readFile('deploy/grafana/llm-gateway-dashboard.json', 'utf8'));
    const panels = dashboard.panels.filter((p: any) => p.type !== 'row');
    const exprs: string[] = panels.flatMap((p: any) => p.targets.map((t: any) => t.expr));
    const used = new Set(exprs.flatMap((e) => [...e.matchAll(/\b(gateway_[a-z_]+?)(?:_bucket|_sum|_count)?\b(?=[{[(\s)]|$)/g)].map((m) => m[1]!)));
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
      const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
      expect(used.size).toBeGreaterThanOrEqual(10);
      for (const name of used) expect(exported, name).toContain(name);
    } finally {
      await gw.close();
      await mock.close();
    }
    const titles = panels.map((p: any) => p.title.toLowerCase()).join(' | ');
    for (const word of ['requests per second', 'error ratio', 'request duration', 'time to first token', 'tokens', 'cost', 'fallbacks', 'breaker', 'log queue depth']) {
      expect(titles).toContain(word);
    }
    expect(dashboard.templating.list.map((v: any) => v.name)).toContain('datasource');
  });
});
