/**
 * The long-lived objects of a running gateway, handed to routes and plugins. The config
 * snapshot is swapped whole on reload; everything else lives for the process.
 */
import type { ProviderConfig } from '../config/types.ts';
import type { ReloadStatus } from '../config/holder.ts';
import type { Snapshot } from '../config/snapshot.ts';
import type { Services } from './services.ts';
import type { StateStore } from '../store/types.ts';
import type { Transport } from '../providers/transport.ts';
import type { ProviderAdapter } from '../providers/types.ts';

/** Finds the wire-format adapter for a provider (built-ins plus plugin-registered ones). */
export interface AdapterLookup {
  get(provider: ProviderConfig): ProviderAdapter;
}

export interface Runtime {
  /**
   * The snapshot in force now, for code outside a request. A request keeps the one it started
   * with (`ctx.snapshot`, the route's `snapshot`): a reload never changes it halfway.
   */
  current(): Snapshot;
  readonly store: StateStore;
  readonly transport: Transport;
  readonly adapters: AdapterLookup;
  readonly version: string;
  readonly startedAt: number;
  /** The last reload's outcome (null until one ran). */
  lastReload(): ReloadStatus | null;
  readonly masterKey?: string;
  readonly dataDir: string;
  readonly baseUrl: string;
  /** The typed services the features provide (src/pipeline/services.ts). */
  readonly services: Services;
}

/**
 * A runtime, its fields always in this order: the gateway's and the start rehearsal's
 * (src/boot/rehearsal.ts) are then one shape to V8, and the code a request runs that was
 * optimized during the rehearsal still fits the real calls (bench/README.md, issue 37).
 */
export function runtimeOf(fields: Runtime): Runtime {
  return {
    current: fields.current,
    lastReload: fields.lastReload,
    store: fields.store,
    transport: fields.transport,
    adapters: fields.adapters,
    version: fields.version,
    startedAt: fields.startedAt,
    masterKey: fields.masterKey,
    dataDir: fields.dataDir,
    baseUrl: fields.baseUrl,
    services: fields.services,
  };
}
