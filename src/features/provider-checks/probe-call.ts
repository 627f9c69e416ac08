/**
 * `POST /v1/admin/providers/{id}/test`: one tiny chat call through the provider (its wire format,
 * endpoint, headers and key), with a short deadline, to answer "does this provider work?" from the
 * console. It leaves no trace in the breaker, the quotas or the call log: it is not a client call.
 * The answer never holds the provider's key, even when the upstream echoes it in an error.
 */
import type { ProviderConfig, Timeouts } from '../../config/types.ts';
import { invalidValue, notFound } from '../../kernel/errors.ts';
import { callJson } from '../../routing/call.ts';
import { timeoutsFor } from '../../routing/timeouts.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { Target } from '../../providers/types.ts';
import type { ChatRequest } from '../../providers/openai-types.ts';

/** The test's own ceiling: a provider's longer deadlines do not hold the admin's page up. */
export const TEST_TIMEOUT_MS = 10_000;

export interface ProviderTestResult {
  object: 'provider_test';
  provider: string;
  /** The upstream model asked. */
  model: string;
  ok: boolean;
  /** The upstream's HTTP status; null when none arrived (connection failure, timeout). */
  status: number | null;
  latency_ms: number;
  /** The start of the answer's text, on success. */
  content: string | null;
  error: { code: string | null; message: string } | null;
}

/** The upstream model to ask: the body's `model`, else the provider's first listed or configured one. */
function modelFor(runtime: Runtime, provider: ProviderConfig, body: unknown): { upstream: string; target: Target } {
  const config = runtime.current().config;
  const asked = body && typeof body === 'object' ? (body as { model?: unknown }).model : undefined;
  if (asked !== undefined && (typeof asked !== 'string' || asked.trim() === '' || asked.length > 256)) {
    throw invalidValue('`model` must be a non-empty string of at most 256 characters.', 'model');
  }
  const modelConfig = config.models.find((m) => m.provider === provider.id && (asked === undefined || m.id === asked || m.upstream_model === asked));
  const upstream = (asked as string | undefined) ?? provider.models[0] ?? modelConfig?.upstream_model ?? modelConfig?.id;
  if (!upstream) throw invalidValue(`Provider '${provider.id}' lists no model and serves no configured model: name one in \`model\`.`, 'model');
  const model = modelConfig && (modelConfig.upstream_model ?? modelConfig.id) === upstream ? modelConfig : undefined;
  return { upstream, target: { provider, model, upstreamModel: upstream, requestedAs: upstream } };
}

/** Every occurrence of the provider's secrets in `text` masked. */
function withoutSecrets(text: string, provider: ProviderConfig): string {
  let out = text;
  for (const secret of [provider.api_key, ...Object.values(provider.headers ?? {})]) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
}

export async function testProvider(runtime: Runtime, id: string, body: unknown): Promise<ProviderTestResult> {
  const provider = runtime.current().providers.get(id);
  if (!provider) throw notFound(`No provider with id '${id}'.`);
  const { upstream, target } = modelFor(runtime, provider, body);
  const configured = timeoutsFor(runtime.current().config, target);
  const timeouts: Timeouts = {
    connect: Math.min(configured.connect, TEST_TIMEOUT_MS),
    first_token: Math.min(configured.first_token, TEST_TIMEOUT_MS),
    idle: Math.min(configured.idle, TEST_TIMEOUT_MS),
    total: Math.min(configured.total, TEST_TIMEOUT_MS),
  };
  const request = { model: upstream, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 5 } as ChatRequest;
  const started = performance.now();
  const result = { object: 'provider_test' as const, provider: provider.id, model: upstream };
  try {
    const completion = await callJson({
      request,
      target,
      adapter: runtime.adapters.get(provider),
      transport: runtime.transport,
      timeouts,
      signal: new AbortController().signal,
    });
    const content = completion.choices?.[0]?.message?.content;
    return {
      ...result,
      ok: true,
      status: 200,
      latency_ms: Math.round(performance.now() - started),
      content: typeof content === 'string' ? withoutSecrets(content.slice(0, 200), provider) : null,
      error: null,
    };
  } catch (error) {
    const failure = error as { info?: { status?: number; code?: string | null; message?: string }; timedOut?: boolean };
    const info = failure.info;
    // 0 is "no answer" (connection failure); a timeout's 504 is the gateway's, not the upstream's.
    const status = info?.status && !failure.timedOut ? info.status : null;
    const message = info?.message ?? (error instanceof Error ? error.message : String(error));
    return {
      ...result,
      ok: false,
      status,
      latency_ms: Math.round(performance.now() - started),
      content: null,
      error: { code: info?.code ?? (error as { code?: string }).code ?? null, message: withoutSecrets(message, provider) },
    };
  }
}
