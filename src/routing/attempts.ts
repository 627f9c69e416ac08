/** Record one upstream attempt in the request's outcome (the log lists every attempt). */
import type { GatewayContext } from '../pipeline/context.ts';
import type { Attempt } from '../pipeline/outcome.ts';
import type { Target } from '../providers/types.ts';

export function recordAttempt(
  ctx: GatewayContext,
  target: Target,
  latencyMs: number,
  status: number,
  errorCode: string | null,
  kind: NonNullable<Attempt['kind']>,
): void {
  const attempt: Attempt = {
    model: target.requestedAs,
    provider: target.provider.id,
    upstreamModel: target.upstreamModel,
    status,
    errorCode,
    latencyMs,
    kind,
  };
  ctx.outcome.attempts.push(attempt);
  ctx.trace?.endAttempt(attempt);
  if (status === 200) ctx.outcome.served = { model: target.requestedAs, provider: target.provider.id, upstreamModel: target.upstreamModel };
}
