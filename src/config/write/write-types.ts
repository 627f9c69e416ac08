/**
 * What write-back.ts and shared-versions.ts both speak of (write-back.ts re-exports them): what a
 * writer works on, and a change as published to the other instances.
 */
import type { StateStore } from '../../store/types.ts';
import type { ConfigHolder } from '../holder.ts';
import type { Snapshot } from '../snapshot.ts';

/** What the writer works on: the config in force, and the state store other instances share. */
export interface WriteTarget {
  readonly config: ConfigHolder<{ snapshot: Snapshot }>;
  readonly store: StateStore;
  /** Seals the content shared through the store (config-sync.ts). */
  readonly masterKey?: string;
}

/**
 * A change as published to the other instances: its version only. The content travels sealed in
 * the state store (config-sync.ts), so a reader of the bus learns no secret.
 */
export interface ChangeMessage {
  origin: string;
  version: string;
  /** Its number: above every version before it (shared-versions.ts). */
  seq: number;
  /** Hashes of the API keys the change revokes: refused on receipt, before the change is applied. */
  revoked?: string[];
}
