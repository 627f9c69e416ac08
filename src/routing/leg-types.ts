/** What tryTargets (try-targets.ts, which re-exports them) and the hedge race (hedge.ts) pass between them. */
import type { GatewayError } from '../kernel/errors.ts';
import type { Attempt } from '../pipeline/outcome.ts';
import type { Target } from '../providers/types.ts';
import type { CircuitCheck } from '../store/types.ts';
import type { AttemptError } from './attempt-error.ts';

export type Kind = NonNullable<Attempt['kind']>;

export interface Success<T> {
  value: T;
  target: Target;
  /** Index of the target in the list tried. */
  index: number;
  /** The kind of the attempt that answered. */
  kind: Kind;
}

/** One target about to be called. */
export interface Leg {
  target: Target;
  index: number;
  kind: Kind;
  /** The breaker's verdict for it; null for a target called although its circuit is open. */
  check: CircuitCheck | null;
}

/** How one target's calls ended. */
export type LegResult<T> = { value: T; kind: Kind } | { error: AttemptError } | { refused: GatewayError } | { cancelled: true; value?: T };
