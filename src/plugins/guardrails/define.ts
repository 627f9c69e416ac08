/**
 * A guardrail of your own, as a pipeline step, in a few lines: give it a name and either a
 * `scan` (find spans, synchronously: it can block, flag or redact, and runs chunk by chunk on a
 * stream) or a `judge` (decide on a whole text, maybe asynchronously: it can block or flag). Its
 * `pipeline:` entry places it and sets `stage` (input, output, both) and `action` besides the
 * options of your own `schema`. Verdicts, errors, the call log and metrics work as for built-ins.
 *
 * @example
 * export default defineGuardrail<{ words: string[] }>({
 *   name: 'no-competitors',
 *   schema: { type: 'object', properties: { words: { type: 'array', items: { type: 'string' } } }, required: ['words'] },
 *   scan: (text, options) => findWords(text, options.words),
 * });
 */
import type { GatewayContext } from '../../pipeline/context.ts';
import { definePlugin, type PluginDefinition } from '../../pipeline/types.ts';
import { guarded } from './index.ts';
import type { Finding, Guardrail, GuardrailAction, Stage } from './types.ts';

export type { Finding, Stage } from './types.ts';

export interface GuardrailOptions {
  stage: Stage | 'both';
  action: GuardrailAction;
  hold_back_chars: number;
  max_hold_chars: number;
}

interface Common<O> {
  /** kebab-case: the step's name, and the guardrail's in errors, logs and metrics. */
  name: string;
  /** JSON Schema of your own options (an object schema; `stage`, `action` and the window are added). */
  schema?: { type?: 'object'; properties?: Record<string, unknown>; required?: string[] };
  /** Sets up once per config load; what it returns is handed to `scan`/`judge` as `options`. */
  setup?(options: O & GuardrailOptions): O & GuardrailOptions;
}

export type GuardrailDefinition<O> = Common<O> &
  (
    | { scan(text: string, options: O & GuardrailOptions): Finding[]; judge?: never }
    | { judge(text: string, context: { stage: Stage; ctx: GatewayContext; options: O & GuardrailOptions }): string[] | Promise<string[]>; scan?: never }
  );

const COMMON_OPTIONS = {
  stage: { enum: ['input', 'output', 'both'], default: 'both' },
  action: { enum: ['block', 'redact', 'flag'], default: 'block' },
  hold_back_chars: { type: 'integer', minimum: 0, maximum: 4096, default: 64 },
  max_hold_chars: { type: 'integer', minimum: 64, maximum: 65536, default: 4096 },
};

export function defineGuardrail<O extends object = Record<string, never>>(def: GuardrailDefinition<O>): PluginDefinition<O & GuardrailOptions> {
  return definePlugin<O & GuardrailOptions>({
    name: def.name,
    failure: 'closed',
    after: { auth: 'the context names the caller' },
    schema: {
      type: 'object',
      additionalProperties: false,
      required: def.schema?.required ?? [],
      properties: { ...COMMON_OPTIONS, ...def.schema?.properties },
    },
    setup(raw, { logger }) {
      const options = def.setup ? def.setup(raw) : raw;
      if (options.action === 'redact' && !def.scan) throw new Error(`guardrail '${def.name}' has a judge, which cannot redact: use block or flag`);
      const scan = def.scan;
      const judge = def.judge;
      const guardrail: Guardrail = {
        name: def.name,
        type: 'plugin',
        stages: new Set<Stage>(options.stage === 'both' ? ['input', 'output'] : [options.stage]),
        action: options.action,
        check: scan
          ? { kind: 'scan', scan: (text) => scan(text, options) }
          : { kind: 'judge', judge: async (text, ctx, stage) => ({ categories: await judge!(text, { stage, ctx, options }) }) },
      };
      const input = guardrail.stages.has('input') ? [guardrail] : [];
      const output = guardrail.stages.has('output') ? [guardrail] : [];
      return {
        handle(ctx, next) {
          return guarded(ctx, next, input, ctx.endpoint === 'embeddings' ? [] : output, options, logger);
        },
      };
    },
  });
}
