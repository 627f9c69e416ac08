/**
 * What the schema cannot say about `guardrails:`: each guardrail attached somewhere, to models,
 * groups and keys that exist; an action and a stage its check can do (only a scanner redacts;
 * size reads the input, json the answer); patterns that compile; and a pipeline that runs them.
 */
import type { PathProblem } from './problems.ts';
import type { RawPipelineEntry } from './pipeline-entry.ts';

interface RawGuardrail {
  id: string;
  stage: 'input' | 'output' | 'both';
  action: 'block' | 'redact' | 'flag';
  apply_to: { default: boolean; models: string[]; groups: string[]; keys: string[] };
  check: { type: string; patterns?: string[]; max_tokens?: number; max_chars?: number };
}

const SCANNERS = new Set(['regex', 'words', 'pii', 'secrets']);

export function checkGuardrails(d: {
  guardrails?: RawGuardrail[];
  models: { id: string }[];
  providers: { id: string; models?: string[] }[];
  groups: { id: string }[];
  keys: { id: string }[];
  pipeline?: RawPipelineEntry[];
}): PathProblem[] {
  const guardrails = d.guardrails ?? [];
  const problems: PathProblem[] = [];
  const seen = new Set<string>();
  const models = new Set(d.models.map((m) => m.id));
  const groups = new Set(d.groups.map((g) => g.id));
  const keys = new Set(d.keys.map((k) => k.id));
  guardrails.forEach((g, i) => {
    const at = (...rest: (string | number)[]) => ['guardrails', i, ...rest];
    if (seen.has(g.id)) problems.push({ segments: at('id'), message: `"${g.id}" is already used by another guardrail` });
    seen.add(g.id);
    const { apply_to: to, check } = g;
    if (!to.default && !to.models.length && !to.groups.length && !to.keys.length) {
      problems.push({ segments: at(), message: 'applies to nothing: set apply_to.default, or list models, groups or keys' });
    }
    const known = (model: string) => models.has(model) || isProviderModel(model, d.providers);
    to.models.forEach((m, j) => known(m) || problems.push({ segments: at('apply_to', 'models', j), message: `names model "${m}", which is not declared` }));
    to.groups.forEach((m, j) => groups.has(m) || problems.push({ segments: at('apply_to', 'groups', j), message: `names group "${m}", which is not declared` }));
    to.keys.forEach((m, j) => keys.has(m) || problems.push({ segments: at('apply_to', 'keys', j), message: `names key "${m}", which is not declared` }));
    if (g.action === 'redact' && !SCANNERS.has(check.type)) {
      problems.push({ segments: at('action'), message: `cannot be redact for a ${check.type} check: only regex, words, pii and secrets find spans to redact` });
    }
    if (check.type === 'size' && g.stage !== 'input') problems.push({ segments: at('stage'), message: 'must be input: a size check reads the request' });
    if (check.type === 'json' && g.stage !== 'output') problems.push({ segments: at('stage'), message: 'must be output: a json check reads the answer' });
    if (check.type === 'size' && check.max_tokens === undefined && check.max_chars === undefined) {
      problems.push({ segments: at('check'), message: 'needs max_tokens or max_chars' });
    }
    check.patterns?.forEach((pattern, j) => {
      try {
        new RegExp(pattern, 'giu');
      } catch (error) {
        problems.push({ segments: at('check', 'patterns', j), message: `is not a valid regular expression: ${(error as Error).message}` });
      }
    });
  });
  if (guardrails.length && d.pipeline && !d.pipeline.some((e) => (typeof e === 'string' ? e : e.name) === 'guardrails' && (typeof e === 'string' || (e.module === undefined && e.enabled !== false)))) {
    problems.push({ segments: ['pipeline'], message: 'has no enabled `guardrails` step, so the guardrails declared would never run: list it (after auth, before cache)' });
  }
  return problems;
}

function isProviderModel(model: string, providers: { id: string; models?: string[] }[]): boolean {
  const slash = model.indexOf('/');
  return slash > 0 && providers.some((p) => p.id === model.slice(0, slash));
}
