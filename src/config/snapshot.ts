/**
 * An immutable snapshot (config plus lookup indexes) of one loaded gateway.yaml.
 */
import type { AccountConfig, GatewayConfig, GroupConfig, KeyConfig, ModelConfig, ProviderConfig } from './types.ts';

/** An immutable view of one loaded gateway.yaml, with lookup indexes built once. */
export interface Snapshot {
  readonly config: GatewayConfig;
  /** Absolute path of the file it came from. */
  readonly file: string;
  /** Increases by one per applied reload. */
  readonly version: number;
  readonly providers: ReadonlyMap<string, ProviderConfig>;
  readonly models: ReadonlyMap<string, ModelConfig>;
  readonly groups: ReadonlyMap<string, GroupConfig>;
  readonly accounts: ReadonlyMap<string, AccountConfig>;
  /** Keyed by `key_hash` (`sha256:<hex>`). */
  readonly keysByHash: ReadonlyMap<string, KeyConfig>;
  readonly keysById: ReadonlyMap<string, KeyConfig>;
}

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
