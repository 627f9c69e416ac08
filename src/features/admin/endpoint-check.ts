/**
 * The API's side of upstream-endpoints.ts: a provider's or model's `endpoint` in a body is refused
 * with a 400 naming the field, before the write (the file's own check would name its list index).
 */
import { endpointProblem } from '../../config/upstream-endpoints.ts';
import { invalidValue } from '../../kernel/errors.ts';
import type { Draft } from '../../config/write/write-back.ts';

/** Throws 400 `invalid_value` (param `endpoint`) when `fields.endpoint` may not be an upstream. */
export function assertUpstreamEndpoint(fields: Record<string, unknown>, draft: Draft): void {
  if (typeof fields.endpoint !== 'string') return;
  const problem = endpointProblem(fields.endpoint, draft.snapshot.config.server.allow_link_local_upstreams);
  if (problem) throw invalidValue(`\`endpoint\` ${problem}.`, 'endpoint');
}
