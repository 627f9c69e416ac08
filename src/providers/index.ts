/**
 * The adapter registry: which ProviderAdapter serves a provider config. Built-in wire formats by
 * `type`; plugins add named adapters that `custom` providers select with `adapter: <name>`.
 * One registry per gateway (no module-level mutable state), so reloads and tests stay isolated.
 */
import type { ProviderConfig } from '../config/types.ts';
import { adapterNotFound } from '../kernel/errors.ts';
import { anthropicAdapter } from './anthropic.ts';
import { azureAdapter } from './azure.ts';
import { customAdapter } from './custom.ts';
import { geminiAdapter } from './gemini.ts';
import { openaiAdapter } from './openai.ts';
import type { ProviderAdapter } from './types.ts';

/** The built-in adapters by provider `type`. Frozen: register plugin adapters on a registry. */
export const builtinAdapters: Readonly<Record<ProviderConfig['type'], ProviderAdapter>> = Object.freeze({
  compat: openaiAdapter,
  vendor_b: anthropicAdapter,
  vendor_c: geminiAdapter,
  vendor_d: azureAdapter,
  custom: customAdapter,
});

export class AdapterRegistry {
  private readonly named = new Map<string, ProviderAdapter>();

  constructor(private readonly builtins: Readonly<Record<string, ProviderAdapter>> = builtinAdapters) {}

  /**
   * Make a plugin adapter available to `custom` providers as `adapter: <name>`.
   * Throws when the name is taken (by a built-in type or an earlier plugin).
   */
  register(name: string, adapter: ProviderAdapter): void {
    if (!name) throw new Error('An adapter needs a name.');
    if (Object.hasOwn(this.builtins, name)) throw new Error(`The adapter name '${name}' is a built-in provider type.`);
    if (this.named.has(name)) throw new Error(`An adapter named '${name}' is already registered.`);
    this.named.set(name, adapter);
  }

  /** Is there an adapter for this config? For config checks before a snapshot goes live. */
  has(provider: Pick<ProviderConfig, 'type' | 'adapter'>): boolean {
    if (provider.type === 'custom' && provider.adapter) return this.named.has(provider.adapter);
    return Object.hasOwn(this.builtins, provider.type);
  }

  /** The adapter for a provider; a missing plugin adapter is a server-side config error (500). */
  get(provider: Pick<ProviderConfig, 'id' | 'type' | 'adapter'>): ProviderAdapter {
    if (provider.type === 'custom' && provider.adapter) {
      const adapter = this.named.get(provider.adapter);
      if (adapter) return adapter;
      throw adapterNotFound(`Provider '${provider.id}' uses the adapter '${provider.adapter}', which no plugin registered.`);
    }
    const adapter = Object.hasOwn(this.builtins, provider.type) ? this.builtins[provider.type] : undefined;
    if (!adapter) throw adapterNotFound(`Provider '${provider.id}' has the unknown type '${provider.type}'.`);
    return adapter;
  }

  /** Alias of `get`, the name the plugin API documents. */
  getAdapter(provider: Pick<ProviderConfig, 'id' | 'type' | 'adapter'>): ProviderAdapter {
    return this.get(provider);
  }

  /** Alias of `register`, the name the plugin API documents. */
  registerAdapter(name: string, adapter: ProviderAdapter): void {
    this.register(name, adapter);
  }

  /** Names registered by plugins. */
  names(): string[] {
    return [...this.named.keys()];
  }
}


/** A fresh registry with the built-in adapters and no plugin adapters. */
export const createAdapterRegistry = () => new AdapterRegistry();

export { anthropicAdapter, azureAdapter, customAdapter, geminiAdapter, openaiAdapter };
