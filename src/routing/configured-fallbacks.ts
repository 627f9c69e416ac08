/**
 * The operator's failover list (`models[].fallbacks` in gateway.yaml): what a request that
 * names no `fallbacks` of its own falls over to, so clients that cannot send the field (the
 * Anthropic and Google SDKs, a plain OpenAI client) still get failover. One level only: the
 * primary's list is used as written and a fallback's own `fallbacks` are not followed, so a
 * request's targets never depend on a walk through the config and lists that name each other
 * (a -> b, b -> a) are harmless.
 */
import type { Snapshot } from '../config/snapshot.ts';
import { modelConfigFor } from './resolve.ts';

/**
 * True when the request body carries a `fallbacks` list: it wins over the configured one, even
 * empty (a client's way to ask for the named model and nothing else).
 */
export function requestNamesFallbacks(body: Readonly<Record<string, unknown>>): boolean {
  return Array.isArray(body.fallbacks);
}

/** The configured fallbacks of the model `primary` names (an id or `provider/model`), in order. */
export function configuredFallbacks(snapshot: Snapshot, primary: string): readonly string[] {
  return modelConfigFor(snapshot, primary)?.fallbacks ?? [];
}
