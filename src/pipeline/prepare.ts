/**
 * Everything about `pipeline:` that can be checked without setting a plugin up: each enabled
 * entry's definition (a built-in, or a custom module resolved from gateway.yaml's folder), the
 * order rules, and each entry's options against its plugin's schema. Every problem names its
 * place in the file (`pipeline[2].options.tag`), so that startup, a reload and `npm run validate`
 * refuse the same file with the same lines.
 */
import { dirname } from 'node:path';
import type { ErrorObject } from 'ajv';
import type { PipelineEntry } from '../config/types.ts';
import type { PathProblem } from '../config/problems.ts';
import { pointerToSegments, type Segment } from '../config/positions.ts';
import { loadPluginDefinition, PluginLoadError, validateOptions, type BuiltinPlugins } from './load-plugin.ts';
import { orderProblems } from './order.ts';
import type { PluginDefinition } from './types.ts';

/** An enabled entry ready for `setup`: its definition and its options, defaults applied. */
export interface PreparedEntry {
  /** Its index in `pipeline:`. */
  index: number;
  name: string;
  /** A custom plugin (loaded from `module`), not a built-in. */
  custom: boolean;
  def: PluginDefinition;
  options: Record<string, unknown>;
}

export type PreparedPipeline = { ok: true; entries: PreparedEntry[] } | { ok: false; problems: PathProblem[] };

/** Loads and checks the enabled entries of `entries`; all problems at once, none thrown. */
export async function preparePipeline(entries: readonly PipelineEntry[], configFile: string, builtins: BuiltinPlugins): Promise<PreparedPipeline> {
  const baseDir = dirname(configFile);
  const problems: PathProblem[] = [];
  const definitions = new Map<number, PluginDefinition>();
  for (const [index, entry] of entries.entries()) {
    if (!entry.enabled) continue;
    try {
      definitions.set(index, await loadPluginDefinition(entry, baseDir, builtins));
    } catch (error) {
      problems.push(loadProblem(error, index));
    }
  }
  problems.push(...orderProblems(entries, (_entry, index) => definitions.get(index)));
  const prepared: PreparedEntry[] = [];
  for (const [index, def] of definitions) {
    const entry = entries[index]!;
    try {
      const checked = await validateOptions(entry, def);
      if (checked.ok) prepared.push({ index, name: entry.name || def.name, custom: entry.module !== undefined, def, options: checked.options });
      else problems.push(...checked.errors.flatMap((error) => optionProblems(error, ['pipeline', index, 'options'])));
    } catch (error) {
      problems.push(loadProblem(error, index));
    }
  }
  return problems.length ? { ok: false, problems } : { ok: true, entries: prepared };
}

/** A module that cannot be used points at its `module:`; an unknown built-in at the entry. */
function loadProblem(error: unknown, index: number): PathProblem {
  if (!(error instanceof PluginLoadError)) throw error;
  return { segments: error.entry.module === undefined ? ['pipeline', index] : ['pipeline', index, 'module'], message: error.reason };
}

/** One options-schema error as a located problem (worded as the config's own schema errors are). */
function optionProblems(error: ErrorObject, options: Segment[]): PathProblem[] {
  const segments = [...options, ...pointerToSegments(error.instancePath)];
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'if':
      return []; // the `then`/`else` error says what is wrong
    case 'required':
      return [{ segments: [...segments, params.missingProperty as string], at: segments, message: 'is required' }];
    case 'additionalProperties':
      return [{ segments: [...segments, params.additionalProperty as string], atKey: true, message: 'is not a known option' }];
    case 'enum':
      return [{ segments, message: `must be one of ${(params.allowedValues as unknown[]).join(', ')}` }];
    default:
      return [{ segments, message: error.message ?? `fails ${error.keyword}` }];
  }
}
