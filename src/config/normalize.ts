/**
 * The defaults a JSON Schema `default` cannot express (they depend on other fields or on the
 * environment), and the normalised pipeline. Runs after schema validation and reference checks.
 */
import path from 'node:path';
import type { GatewayConfig, PipelineEntry } from './types.ts';
import { BUILTIN_STEPS, type RawPipelineEntry } from './checks.ts';
import type { Env } from './interpolate.ts';
import type { PathProblem } from './problems.ts';
import { declaredVersion } from './version.ts';

type Mutable = Record<string, unknown>;

/**
 * Server fields taken from the environment when the file leaves them out: `PORT`, `HOST`,
 * `GATEWAY_BASE_URL` (CONTRACT.md). Runs before validation so that the values are checked too.
 */
export function applyEnvDefaults(data: Mutable, env: Env): PathProblem[] {
  const server = (data.server ??= {}) as Mutable;
  if (typeof server !== 'object' || server === null || Array.isArray(server)) return [];
  const problems: PathProblem[] = [];
  if (server.port === undefined && env.PORT) {
    if (/^[0-9]+$/.test(env.PORT.trim())) server.port = Number(env.PORT.trim());
    else problems.push({ segments: ['server', 'port'], message: `from environment variable PORT must be an integer, got ${JSON.stringify(env.PORT)}` });
  }
  if (server.host === undefined && env.HOST) server.host = env.HOST;
  if (server.base_url === undefined && env.GATEWAY_BASE_URL) server.base_url = env.GATEWAY_BASE_URL;
  return problems;
}

/** Turns validated, defaulted data into the final `GatewayConfig`. Mutates and returns `data`. */
export function normalizeConfig(data: Mutable): GatewayConfig {
  const config = data as unknown as GatewayConfig;
  config.version = declaredVersion(data);
  for (const list of [config.providers, config.models, config.groups, config.keys, config.accounts]) {
    for (const item of list as { id: string; name?: string }[]) item.name ??= item.id;
  }
  for (const model of config.models) model.context_length ??= config.limits.max_context_length;
  // Accounts whose settings name no temperature get the system's default.
  config.settings.api.default_temperature ??= config.limits.default_temperature;
  const defaultPipeline = data.pipeline === undefined;
  config.pipeline = normalizePipeline(data.pipeline as RawPipelineEntry[] | undefined);
  // The default pipeline runs declared guardrails after the limits and before the cache.
  if (defaultPipeline && config.guardrails.length) {
    config.pipeline.splice(config.pipeline.findIndex((e) => e.name === 'cache'), 0, { name: 'guardrails', enabled: true, options: {} });
  }
  for (const guardrail of config.guardrails) guardrail.name ??= guardrail.id;
  return config;
}

/**
 * Normalises `pipeline:` entries. A string is a built-in name; an object without `name` is named
 * after its module file (`./plugins/audit-trail.ts` -> `audit-trail`). Absent means the default list.
 */
export function normalizePipeline(raw: readonly RawPipelineEntry[] | undefined): PipelineEntry[] {
  if (!raw) return BUILTIN_STEPS.map((name) => ({ name, enabled: true, options: {} }));
  return raw.map((entry) => {
    if (typeof entry === 'string') return { name: entry, enabled: true, options: {} };
    const out: PipelineEntry = {
      name: entry.name ?? moduleName(entry.module!),
      enabled: entry.enabled ?? true,
      options: entry.options ?? {},
    };
    if (entry.module !== undefined) out.module = entry.module;
    return out;
  });
}

function moduleName(spec: string): string {
  const base = path.basename(spec);
  // `./x/index.ts` says nothing; use the folder. Scoped packages keep only the last part.
  const stem = base.replace(/\.(m|c)?(t|j)s$/, '');
  return stem === 'index' ? path.basename(path.dirname(spec)) : stem;
}
