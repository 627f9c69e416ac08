/**
 * The running gateway as features see it: the runtime, the one handle on the config in force
 * (each generation pairs a snapshot with the pipeline composed for it), and the config writer.
 */
import type { ConfigHolder } from '../config/holder.ts';
import type { Snapshot } from '../config/snapshot.ts';
import type { ConfigWriter } from '../config/write/write-back.ts';
import type { Pipeline } from './pipeline.ts';
import type { Runtime } from './runtime.ts';

/** The config generation in force: swapped as one object so a request sees a consistent pair. */
export interface Generation {
  readonly snapshot: Snapshot;
  readonly pipeline: Pipeline;
}

/** What an inference call reads of the gateway: the runtime and the generation in force. */
export interface InferenceHost {
  readonly runtime: Runtime;
  readonly config: Pick<ConfigHolder<Generation>, 'current'>;
}

export interface Gateway {
  readonly runtime: Runtime;
  readonly config: ConfigHolder<Generation>;
  /** Management changes to gateway.yaml (write-back). */
  readonly writer: ConfigWriter;
}
