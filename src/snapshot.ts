/**
 * Build an immutable snapshot (config plus lookup indexes) from a validated config.
 */
import type { GatewayConfig } from './config/types.ts';
import type { Snapshot } from './runtime.ts';

const byId = <T extends { id: string }>(items: T[]) => new Map(items.map((item) => [item.id, item] as const));

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export function buildSnapshot(config: GatewayConfig, file: string, version: number): Snapshot {
  deepFreeze(config);
  return {
    config,
    file,
    version,
    providers: byId(config.providers),
    models: byId(config.models),
    groups: byId(config.groups),
    accounts: byId(config.accounts),
    keysByHash: new Map(config.keys.map((key) => [key.key_hash, key] as const)),
    keysById: byId(config.keys),
  };
}
