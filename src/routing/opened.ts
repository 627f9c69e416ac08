/** A stream an attempt opened, as relay.ts relays it and resume.ts replaces it (relay.ts re-exports it). */
import type { Attempt } from '../pipeline/outcome.ts';
import type { Target } from '../providers/types.ts';
import type { OpenStream } from './call.ts';

export interface Opened {
  stream: OpenStream;
  target: Target;
  index: number;
  kind: NonNullable<Attempt['kind']>;
}
