/**
 * What an upstream call's span says about the upstream, after the GenAI semantic conventions: the
 * provider by its well-known name, the model asked for, the server called, and the model the
 * upstream says answered.
 */
import type { ProviderConfig } from '../config/types.ts';
import type { Target } from '../providers/types.ts';
import * as sc from '../kernel/semconv.ts';

/** The well-known `gen_ai.provider.name` of a provider's wire format, else its id. */
export function providerName(provider: ProviderConfig): string {
  return sc.GEN_AI_PROVIDER_BY_TYPE[provider.type] ?? provider.id;
}

/** server.address and server.port of each provider's endpoint, parsed once per config object. */
const servers = new WeakMap<ProviderConfig, { address?: string; port?: number }>();

function serverOf(provider: ProviderConfig): { address?: string; port?: number } {
  let server = servers.get(provider);
  if (!server) {
    try {
      const url = new URL(provider.endpoint);
      server = { address: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) };
    } catch {
      server = {};
    }
    servers.set(provider, server);
  }
  return server;
}

/** Everything known of a call before it is sent (a call cut short still carries it). */
export function targetAttributes(target: Target): Record<string, string | number | undefined> {
  const { provider, upstreamModel } = target;
  const server = serverOf(provider);
  return {
    [sc.ATTR_GEN_AI_PROVIDER_NAME]: providerName(provider),
    [sc.ATTR_GEN_AI_REQUEST_MODEL]: upstreamModel,
    [sc.ATTR_SERVER_ADDRESS]: server.address,
    [sc.ATTR_SERVER_PORT]: server.port,
    'gateway.provider.id': provider.id,
    'gateway.deployment': `${provider.id}/${upstreamModel}`,
    'gateway.model': target.requestedAs,
  };
}

/**
 * The model an upstream names in its answer, before the adapter renames it to the client's:
 * `model` (chat completions and their chunks, a Messages answer), `message.model` (a Messages
 * stream's first event), `modelVersion` (generateContent).
 */
export function reportedModelOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const answer = body as { model?: unknown; message?: { model?: unknown } | null; modelVersion?: unknown };
  const model = answer.model ?? (typeof answer.message === 'object' ? answer.message?.model : undefined) ?? answer.modelVersion;
  return typeof model === 'string' && model ? model : undefined;
}
