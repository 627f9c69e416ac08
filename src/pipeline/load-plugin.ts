/**
 * Resolve a pipeline entry to a plugin definition: a built-in by name (from the table the caller
 * passes), or a custom module
 * (path relative to gateway.yaml, or a package name) exporting a definition as `default`
 * or `plugin`. Options are validated against the plugin's own schema, defaults applied.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import type { PipelineEntry } from '../config/types.ts';
import type { PluginDefinition } from './types.ts';

// The built-ins' schemas are checked against the meta-schema by the tests, not at every start
// (compiling the 2020-12 meta-schema held ~0.7 MiB per ajv instance); a module's schema is
// checked when it loads.
const ajv = new Ajv2020.default({ allErrors: true, useDefaults: true, strict: false, validateSchema: false });

export class PluginLoadError extends Error {
  constructor(entry: PipelineEntry, message: string) {
    super(`pipeline entry '${entry.module ?? entry.name}': ${message}`);
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
    throw new PluginLoadError(entry, `cannot load module: ${(error as Error).message}`);
  }
  const def = [loaded.default, loaded.plugin].find(isDefinition);
  if (!def) throw new PluginLoadError(entry, 'the module exports no plugin definition (default export of definePlugin({...}))');
  if (def.failure !== 'open' && def.failure !== 'closed') throw new PluginLoadError(entry, "failure must be 'open' or 'closed'");
  if (!ajv.validateSchema(def.schema)) throw new PluginLoadError(entry, `its options schema is not valid JSON Schema: ${ajv.errorsText(ajv.errors)}`);
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
const registerTypeScript = () => (typescript ??= import('tsx/esm/api').then(({ register }) => void register()));

function resolvedUrl(specifier: string): string {
  try {
    return import.meta.resolve(specifier);
  } catch {
    return specifier; // not resolvable: the import says why
  }
}

/** Validate and default an entry's options; throws naming each problem. */
export function validateOptions(entry: PipelineEntry, def: PluginDefinition): Record<string, unknown> {
  const options = structuredClone(entry.options ?? {});
  const validate = ajv.compile(def.schema);
  if (!validate(options)) {
    const problems = (validate.errors ?? []).map((e) => `options${e.instancePath.replaceAll('/', '.')} ${e.message}`);
    throw new PluginLoadError(entry, problems.join('; '));
  }
  return options;
}
