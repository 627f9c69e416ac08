/**
 * Cross-reference checks the schema cannot express: dangling references, duplicate ids, the
 * shape of the pipeline, and where upstream endpoints may point. Run on schema-valid, defaulted data.
 */
import { checkSettingsCurrency } from './currency.ts';
import { fallbackProblem, type ModelRef } from './fallback-refs.ts';
import { checkUpstreamEndpoints } from './upstream-endpoints.ts';
import { checkGuardrails } from './guardrail-checks.ts';
import type { RawPipelineEntry } from './pipeline-entry.ts';
import type { PathProblem } from './problems.ts';
import type { GatewayConfig } from './types.ts';
import type { Segment } from './positions.ts';

/** Built-in pipeline steps, in their default order. */
export const BUILTIN_STEPS = ['log', 'auth', 'permission', 'route', 'rate-limit', 'cache', 'concurrency', 'upstream'] as const;
/** Built-ins that are not in the default pipeline: they need options (semantic-cache: its embedding model) or `guardrails:`. */
export const OPTIONAL_STEPS = ['semantic-cache', 'guardrails'] as const;

/** The id every master-key request acts as; keys may belong to it without an `accounts` entry. */
export const ADMIN_ACCOUNT_ID = 'admin';

export type { RawPipelineEntry } from './pipeline-entry.ts';

interface Raw {
  providers: { id: string; models?: string[] }[];
  models: (ModelRef & { deployments?: { provider: string }[]; fallbacks?: string[] })[];
  groups: { id: string }[];
  keys: { id: string; key_hash: string; account: string }[];
  accounts: { id: string; email: string; group?: string }[];
  oauth: { clients: { client_id: string }[] };
  pipeline?: RawPipelineEntry[];
  billing: GatewayConfig['billing'];
  settings: { account: { currency: string } };
}

/** Returns every cross-reference problem of `data` (empty when consistent). */
export function checkReferences(data: unknown): PathProblem[] {
  const d = data as Raw;
  const problems: PathProblem[] = [];
  const providers = unique(d.providers, 'providers', 'id', problems);
  unique(d.models, 'models', 'id', problems);
  const groups = unique(d.groups, 'groups', 'id', problems);
  unique(d.keys, 'keys', 'id', problems);
  unique(d.keys, 'keys', 'key_hash', problems);
  const accounts = unique(d.accounts, 'accounts', 'id', problems);
  unique(d.accounts, 'accounts', 'email', problems);
  unique(d.oauth.clients, ['oauth', 'clients'], 'client_id', problems);

  const list = (set: Set<string>) => [...set].join(', ') || 'none declared';
  d.models.forEach((m, i) => {
    if (!providers.has(m.provider)) {
      problems.push({ segments: ['models', i, 'provider'], message: `names provider "${m.provider}", which is not declared in providers (${list(providers)})` });
    }
    m.deployments?.forEach((dep, j) => {
      if (!providers.has(dep.provider)) {
        problems.push({ segments: ['models', i, 'deployments', j, 'provider'], message: `names provider "${dep.provider}", which is not declared in providers (${list(providers)})` });
      }
    });
    m.fallbacks?.forEach((fallback, j) => {
      const problem = fallbackProblem(m, fallback, d.models, d.providers);
      if (problem) problems.push({ segments: ['models', i, 'fallbacks', j], message: problem });
    });
  });
  d.keys.forEach((k, i) => {
    if (k.account !== ADMIN_ACCOUNT_ID && !accounts.has(k.account)) {
      problems.push({ segments: ['keys', i, 'account'], message: `names account "${k.account}", which is not declared in accounts (nor "${ADMIN_ACCOUNT_ID}")` });
    }
  });
  d.accounts.forEach((a, i) => {
    if (a.group !== undefined && !groups.has(a.group)) {
      problems.push({ segments: ['accounts', i, 'group'], message: `names group "${a.group}", which is not declared in groups (${list(groups)})` });
    }
  });
  if (d.pipeline) problems.push(...checkPipeline(d.pipeline));
  problems.push(...checkSettingsCurrency(d));
  problems.push(...checkUpstreamEndpoints(d));
  problems.push(...checkGuardrails(d as unknown as Parameters<typeof checkGuardrails>[0]));
  return problems;
}

/** The pipeline must end with `upstream` (the terminal step) and name each built-in at most once. */
export function checkPipeline(pipeline: readonly RawPipelineEntry[]): PathProblem[] {
  const problems: PathProblem[] = [];
  const seen = new Map<string, number>();
  const builtins: readonly string[] = [...BUILTIN_STEPS, ...OPTIONAL_STEPS];
  pipeline.forEach((entry, i) => {
    const e = typeof entry === 'string' ? { name: entry } : entry;
    if (e.module === undefined) {
      if (e.name === undefined) {
        problems.push({ segments: ['pipeline', i], message: 'needs `name` (a built-in step) or `module` (a custom plugin)' });
        return;
      }
      if (!builtins.includes(e.name)) {
        problems.push({ segments: ['pipeline', i, 'name'], message: `"${e.name}" is not a built-in step (${builtins.join(', ')}); give \`module\` for a custom plugin` });
        return;
      }
      const first = seen.get(e.name);
      if (first !== undefined) {
        problems.push({ segments: pathOf(entry, i), message: `"${e.name}" is already listed at pipeline[${first}]; each built-in step may appear once` });
      } else seen.set(e.name, i);
    }
  });
  const lastIndex = pipeline.length - 1;
  const last = pipeline[lastIndex];
  const lastEntry = typeof last === 'string' ? { name: last } : last;
  if (!lastEntry || lastEntry.name !== 'upstream' || lastEntry.module !== undefined) {
    problems.push({ segments: ['pipeline', lastIndex], at: lastIndex >= 0 ? undefined : ['pipeline'], message: 'must be `upstream`: the pipeline has to end with the upstream step' });
  } else if (lastEntry.enabled === false) {
    problems.push({ segments: ['pipeline', lastIndex, 'enabled'], message: 'cannot be false: `upstream` is the terminal step' });
  }
  return problems;
}

function pathOf(entry: RawPipelineEntry, i: number): Segment[] {
  return typeof entry === 'string' ? ['pipeline', i] : ['pipeline', i, 'name'];
}

function unique<T>(items: T[], at: string | string[], field: keyof T & string, problems: PathProblem[]): Set<string> {
  const base = Array.isArray(at) ? at : [at];
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const value = String(item[field]);
    const first = seen.get(value);
    if (first === undefined) seen.set(value, i);
    else problems.push({ segments: [...base, i, field], message: `duplicates ${field} "${value}" of ${base.join('.')}[${first}]` });
  });
  return new Set(seen.keys());
}
