import { describe, expect, it } from 'vitest';
import { GatewayError } from '../kernel/errors.ts';
import { anthropicAdapter, azureAdapter, builtinAdapters, createAdapterRegistry, customAdapter, geminiAdapter, openaiAdapter } from './index.ts';
import type { ProviderAdapter } from './types.ts';

const plugin: ProviderAdapter = { ...openaiAdapter, type: 'my-format' };

describe('adapter registry', () => {
  it('serves the built-in adapter for each provider type', () => {
    const registry = createAdapterRegistry();
    expect(registry.get({ id: 'a', type: 'compat' })).toBe(openaiAdapter);
    expect(registry.get({ id: 'b', type: 'vendor_b' })).toBe(anthropicAdapter);
    expect(registry.get({ id: 'c', type: 'vendor_c' })).toBe(geminiAdapter);
    expect(registry.get({ id: 'd', type: 'vendor_d' })).toBe(azureAdapter);
    expect(registry.getAdapter({ id: 'e', type: 'custom' })).toBe(customAdapter);
    expect(Object.isFrozen(builtinAdapters)).toBe(true);
  });

  it('resolves a custom provider naming a plugin-registered adapter', () => {
    const registry = createAdapterRegistry();
    registry.registerAdapter('my-format', plugin);
    expect(registry.get({ id: 'p', type: 'custom', adapter: 'my-format' })).toBe(plugin);
    expect(registry.has({ type: 'custom', adapter: 'my-format' })).toBe(true);
    expect(registry.names()).toEqual(['my-format']);
  });

  it('keeps registrations per registry instance', () => {
    const one = createAdapterRegistry();
    one.register('my-format', plugin);
    const two = createAdapterRegistry();
    expect(two.has({ type: 'custom', adapter: 'my-format' })).toBe(false);
  });

  it('refuses duplicate or built-in names and reports a missing adapter as a 500', () => {
    const registry = createAdapterRegistry();
    registry.register('my-format', plugin);
    expect(() => registry.register('my-format', plugin)).toThrow(/already registered/);
    expect(() => registry.register('vendor_b', plugin)).toThrow(/built-in/);
    let caught: unknown;
    try {
      registry.get({ id: 'p', type: 'custom', adapter: 'missing' });
    } catch (error) {
      caught = error;
    }
    expect(GatewayError.is(caught) && [caught.status, caught.code]).toEqual([500, 'adapter_not_found']);
    expect(caught instanceof Error && caught.message).toMatch(/'missing'/);
  });
});
