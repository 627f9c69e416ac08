/**
 * Step order rules: a plugin definition declares the steps it must run after (`after`, with the
 * reason), and a `pipeline:` that lists it before one of them is refused at load, naming the
 * entry's place in gateway.yaml. A rule binds only when both steps are in the pipeline.
 */
import type { PathProblem } from '../config/problems.ts';
import type { PipelineEntry } from '../config/types.ts';
import type { PluginDefinition } from './types.ts';

/**
 * Every broken rule of `entries` (enabled ones only). `definitionOf` gives an entry's definition,
 * or undefined when unknown (its own rules are then not checked; it still counts as present).
 */
export function orderProblems(
  entries: readonly PipelineEntry[],
  definitionOf: (entry: PipelineEntry, index: number) => PluginDefinition<any> | undefined,
): PathProblem[] {
  const position = new Map<string, number>();
  entries.forEach((entry, index) => {
    if (entry.enabled && !position.has(entry.name)) position.set(entry.name, index);
  });
  const problems: PathProblem[] = [];
  entries.forEach((entry, index) => {
    if (!entry.enabled) return;
    for (const [before, reason] of Object.entries(definitionOf(entry, index)?.after ?? {})) {
      const at = position.get(before);
      if (at === undefined || at < index) continue;
      problems.push({
        segments: ['pipeline', index],
        message: `"${entry.name}" must run after "${before}" (listed at pipeline[${at}]): ${reason}`,
      });
    }
  });
  return problems;
}
