/**
 * The built-in steps by name, for the pipeline builder (boot hands this table in). Their names
 * and default order are written once, in src/config/checks.ts; the type below makes a step
 * named there without a definition here (or the other way round) a compile error. Custom
 * plugins are loaded from the module named in `pipeline:` and are never added here.
 */
import type { BUILTIN_STEPS, OPTIONAL_STEPS } from '../config/checks.ts';
import type { PluginDefinition } from '../pipeline/types.ts';
import { usePrecompiledOptions } from '../pipeline/load-plugin.ts';
import * as optionValidators from './options-validators.generated.js';
import auth from './auth.ts';
import cache from './cache.ts';
import concurrency from './concurrency.ts';
import guardrails from './guardrails/index.ts';
import log from './log.ts';
import permission from './permission.ts';
import rateLimit from './rate-limit.ts';
import route from './route.ts';
import semanticCache from './semantic-cache.ts';
import upstream from './upstream.ts';

type BuiltinStep = (typeof BUILTIN_STEPS)[number] | (typeof OPTIONAL_STEPS)[number];

const definitions: Record<BuiltinStep, PluginDefinition<any>> = {
  log,
  auth,
  permission,
  route,
  'rate-limit': rateLimit,
  cache,
  concurrency,
  upstream,
  'semantic-cache': semanticCache,
  guardrails,
};

/** Each built-in's options validator, generated ahead of time from its schema (scripts/generate-validators.ts). */
const precompiled: Record<BuiltinStep, typeof optionValidators.log> = {
  log: optionValidators.log,
  auth: optionValidators.auth,
  permission: optionValidators.permission,
  route: optionValidators.route,
  'rate-limit': optionValidators.rateLimit,
  cache: optionValidators.cache,
  concurrency: optionValidators.concurrency,
  upstream: optionValidators.upstream,
  'semantic-cache': optionValidators.semanticCache,
  guardrails: optionValidators.guardrails,
};
for (const [name, def] of Object.entries(definitions)) usePrecompiledOptions(def, precompiled[name as BuiltinStep]);

export const builtinPlugins: ReadonlyMap<string, PluginDefinition<any>> = new Map(Object.entries(definitions));
