/**
 * The long-lived objects of a running gateway, handed to routes and plugins. The config
 * snapshot is swapped whole on reload; everything else lives for the process.
 */
import type { AccountConfig, GatewayConfig, GroupConfig, KeyConfig, ModelConfig, ProviderConfig } from './config/types.ts';
import type { StateStore } from './store/types.ts';
import type { Transport } from './providers/transport.ts';
import type { ProviderAdapter } from './providers/types.ts';

/** Finds the wire-format adapter for a provider (built-ins plus plugin-registered ones). */
export interface AdapterLookup {
  get(provider: ProviderConfig): ProviderAdapter;
}

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

export interface ReloadStatus {
  at: string;
  ok: boolean;
  error: string | null;
  /** Startup-only settings the reload changed: they apply after a restart. */
  restart_required?: string[];
}

export interface Runtime {
  /** The current snapshot; capture it once per request. */
  readonly snapshot: Snapshot;
  readonly store: StateStore;
  readonly transport: Transport;
  readonly adapters: AdapterLookup;
  readonly version: string;
  readonly startedAt: number;
  readonly lastReload: ReloadStatus | null;
  readonly masterKey?: string;
  readonly dataDir: string;
  readonly baseUrl: string;
  /** Optional services filled in as the gateway grows (logs, metrics, mailer...). */
  readonly services: Record<string, unknown>;
}
