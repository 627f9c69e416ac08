/**
 * The plugin interface. A plugin is a definition (name, schema, failure mode) whose `setup`
 * returns an instance with an onion step (`handle`) and/or an observer (`onComplete`).
 */
import type { GatewayContext } from './context.ts';
import type { Outcome } from './outcome.ts';
import type { Runtime } from './runtime.ts';
import type { Logger } from '../kernel/logger.ts';

export type Next = () => Promise<Response>;
export type Step = (ctx: GatewayContext, next: Next) => Promise<Response>;

export interface PluginDeps {
  runtime: Runtime;
  /** Structured logger (console-backed by default). */
  logger: Logger;
  now(): number;
}

/** The structured logger plugins get (src/kernel/logger.ts). */
export type { Logger } from '../kernel/logger.ts';

export interface PluginDefinition<Config = Record<string, unknown>> {
  /** kebab-case; equals the file name and the `pipeline:` entry name. */
  name: string;
  /** JSON Schema of the entry's `options` (validated at load, defaults applied). */
  schema: object;
  /** On an unexpected throw: `closed` rejects the request, `open` skips the step and logs. */
  failure: 'closed' | 'open';
  /**
   * Steps this one must run after when both are in the pipeline, each with the reason (shown
   * when a `pipeline:` breaks the rule, which refuses the config).
   * @example after: { route: 'provider quotas need the routed provider' }
   */
  after?: Readonly<Record<string, string>>;
  setup(options: Config, deps: PluginDeps): PluginInstance | Promise<PluginInstance>;
}

export interface PluginInstance {
  /** Onion step; omit for pure observers. Must return next()'s result, a Response, or throw. */
  handle?: Step;
  /** Called once after the last byte, an abort or a short-circuit; errors are only logged. */
  onComplete?(ctx: GatewayContext, outcome: Outcome): void | Promise<void>;
  /** Release resources on reload or shutdown. */
  close?(): void | Promise<void>;
}

/** Identity helper that types a plugin definition. */
export const definePlugin = <C = Record<string, unknown>>(def: PluginDefinition<C>) => def;
