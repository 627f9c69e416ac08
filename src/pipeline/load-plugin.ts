/**
 * Resolve a pipeline entry to a plugin definition: a built-in by name (from the table the caller
 * passes), or a custom module
 * (path relative to gateway.yaml, or a package name) exporting a definition as `default`
 * or `plugin`. Options are validated against the plugin's own schema, defaults applied.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import type { PipelineEntry } from '../config/types.ts';
import type { PluginDefinition } from './types.ts';

/** How an options schema is compiled: every error, defaults filled in (also the generated ones'). */
export const PLUGIN_OPTIONS_AJV: Options = { allErrors: true, useDefaults: true, strict: false, validateSchema: false };

/**
 * Options validators by schema. The built-ins' are generated ahead of time (src/plugins/index.ts
 * hands them in), so a gateway with only built-ins loads no ajv at all; any other schema is
 * compiled when its pipeline is first built, a module's after checking it against the meta-schema.
 */
const validators = new WeakMap<object, ValidateFunction>();
let compiler: Promise<Ajv> | undefined;

/** Registers the precompiled options validator of a built-in plugin. */
export function usePrecompiledOptions(def: PluginDefinition<any>, validate: ValidateFunction): void {
  validators.set(def.schema, validate);
}

async function optionsValidator(entry: PipelineEntry, def: PluginDefinition): Promise<ValidateFunction> {
  const known = validators.get(def.schema);
  if (known) return known;
  const ajv = await (compiler ??= import('ajv/dist/2020.js').then(({ default: ajv2020 }) => new ajv2020.default(PLUGIN_OPTIONS_AJV)));
  if (entry.module && !ajv.validateSchema(def.schema)) {
    throw new PluginLoadError(entry, `'${entry.module}' has an options schema that is not valid JSON Schema: ${ajv.errorsText(ajv.errors)}`);
  }
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(def.schema);
  } catch (error) {
    throw new PluginLoadError(entry, `'${entry.module ?? entry.name}' has an options schema that cannot be compiled: ${(error as Error).message}`);
  }
  validators.set(def.schema, validate);
  return validate;
}

/** An entry whose plugin cannot be used: `reason` reads after the entry's place in gateway.yaml. */
export class PluginLoadError extends Error {
  constructor(
    readonly entry: PipelineEntry,
    readonly reason: string,
  ) {
    super(`pipeline entry '${entry.module ?? entry.name}': ${reason}`);
    this.name = 'PluginLoadError';
  }
}

function isDefinition(value: unknown): value is PluginDefinition {
  const def = value as PluginDefinition | undefined;
  return !!def && typeof def.name === 'string' && typeof def.setup === 'function' && typeof def.schema === 'object';
}

/** The built-in steps by name: handed in by the caller (boot), never imported here. */
export type BuiltinPlugins = ReadonlyMap<string, PluginDefinition<any>>;

export async function loadPluginDefinition(entry: PipelineEntry, baseDir: string, builtinPlugins: BuiltinPlugins): Promise<PluginDefinition> {
  if (!entry.module) {
    const builtin = builtinPlugins.get(entry.name);
    if (!builtin) throw new PluginLoadError(entry, `unknown built-in plugin; built-ins are ${[...builtinPlugins.keys()].join(', ')}`);
    return builtin;
  }
  const specifier = entry.module.startsWith('.') || isAbsolute(entry.module) ? pathToFileURL(resolve(baseDir, entry.module)).href : entry.module;
  let loaded: Record<string, unknown>;
  try {
    loaded = await importModule(specifier);
  } catch (error) {
    // One problem, one line: a compiler's error spans several.
    const why = String((error as Error)?.message ?? error).replace(/\s*\n\s*/g, ' ');
    throw new PluginLoadError(entry, `cannot load module '${entry.module}': ${why}`);
  }
  const def = [loaded.default, loaded.plugin].find(isDefinition);
  if (!def) throw new PluginLoadError(entry, `'${entry.module}' exports no plugin definition (default export of definePlugin({...}))`);
  if (def.failure !== 'open' && def.failure !== 'closed') throw new PluginLoadError(entry, `'${entry.module}' declares failure ${JSON.stringify(def.failure)}; it must be 'open' or 'closed'`);
  return def;
}

/**
 * Imports a plugin module. From the bundle (`npm start`) Node itself cannot import TypeScript, so
 * tsx's hooks are registered on the first plugin module that is TypeScript: a gateway without one
 * never pays for the loader (its thread held ~100 MiB). From the sources, their loader does it.
 */
async function importModule(specifier: string): Promise<Record<string, unknown>> {
  if (!RUNNING_TYPESCRIPT && TYPESCRIPT_FILE.test(resolvedUrl(specifier))) await registerTypeScript();
  return import(specifier);
}

const RUNNING_TYPESCRIPT = import.meta.url.endsWith('.ts');
const TYPESCRIPT_FILE = /\.[cm]?tsx?$/;
let typescript: Promise<void> | undefined;
const registerTypeScript = () =>
  (typescript ??= import('tsx/esm/api').then(
    ({ register }) => void register(),
    (error) => {
      typescript = undefined;
      if ((error as { code?: string })?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
      // The container image leaves tsx out unless built for TypeScript plugins (Dockerfile).
      throw new Error('TypeScript plugins need tsx, which this installation leaves out: compile the plugin to .js or .mjs, or build the image with --build-arg TYPESCRIPT_PLUGINS=true');
    },
  ));

function resolvedUrl(specifier: string): string {
  try {
    return import.meta.resolve(specifier);
  } catch {
    return specifier; // not resolvable: the import says why
  }
}

/**
 * Validate and default an entry's options (a copy: the config stays as written): the options, or
 * the schema's errors. Throws PluginLoadError when a module's schema is itself invalid.
 */
export async function validateOptions(
  entry: PipelineEntry,
  def: PluginDefinition,
): Promise<{ ok: true; options: Record<string, unknown> } | { ok: false; errors: ErrorObject[] }> {
  const options = structuredClone(entry.options ?? {});
  const validate = await optionsValidator(entry, def);
  if (!validate(options)) return { ok: false, errors: [...(validate.errors ?? [])] };
  return { ok: true, options };
}
