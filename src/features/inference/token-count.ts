/**
 * What the token-count endpoints (the Messages API's count_tokens, generateContent's countTokens)
 * share. They are no model call, so they run outside the pipeline; the caller is checked as the
 * pipeline would (credential, the route's scope, the model's permissions), and a model whose
 * upstream has a count of its own is asked in one call bounded by the target's timeouts.
 */
import { EventEmitter } from 'node:events';
import { authenticate } from '../../auth/authenticate.ts';
import { modelPermitted } from '../../auth/model-permission.ts';
import { requireScope } from '../../auth/route-scopes.ts';
import type { PlatformScope } from '../../auth/scopes.ts';
import type { Snapshot } from '../../config/snapshot.ts';
import { modelNotPermitted } from '../../kernel/errors.ts';
import type { Gateway } from '../../pipeline/gateway.ts';
import type { Target } from '../../providers/types.ts';
import { timeoutsFor } from '../../routing/timeouts.ts';

/** Throws 401 for no or a wrong credential, 403 for a missing scope or a model the caller may not use. */
export async function authorizeCount(gateway: Gateway, snapshot: Snapshot, request: Request, ip: string, scope: PlatformScope, model: string): Promise<void> {
  const { principal } = await authenticate(request, gateway.runtime, snapshot, ip);
  requireScope(principal, scope);
  if (!modelPermitted(principal, snapshot, model)) throw modelNotPermitted(model);
}

/**
 * POSTs `body` to the upstream's count at `url` and reads its answer whole, whatever its status;
 * throws when it cannot be reached or does not answer within the target's timeouts (its total
 * one too: the client waits on it).
 */
export async function askUpstreamCount(
  gateway: Gateway,
  snapshot: Snapshot,
  target: Target,
  call: { url: string; headers: Record<string, string>; body: string },
): Promise<{ status: number; text: string }> {
  const timeouts = timeoutsFor(snapshot.config, target);
  const signal = Object.assign(new EventEmitter(), { aborted: false, reason: undefined });
  const timer = setTimeout(() => {
    signal.aborted = true;
    signal.emit('abort');
  }, timeouts.total);
  try {
    const reply = await gateway.runtime.transport.send({
      ...call,
      signal,
      connectTimeoutMs: timeouts.connect,
      headersTimeoutMs: timeouts.first_token,
      idleTimeoutMs: timeouts.idle,
    });
    return { status: reply.status, text: await reply.body.text() };
  } finally {
    clearTimeout(timer);
  }
}
