/**
 * OpenTelemetry traces, with the standard Node.js SDK and the GenAI semantic conventions.
 *
 * On only when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (and
 * OTEL_SDK_DISABLED is not true, OTEL_TRACES_EXPORTER not `none`); then the SDK reads every other
 * standard variable itself (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_PROTOCOL,
 * _HEADERS, _TIMEOUT, OTEL_TRACES_SAMPLER, OTEL_PROPAGATORS, OTEL_BSP_*...). Off, nothing of
 * OpenTelemetry is loaded (the SDK is imported dynamically, and only here) and the request path pays
 * one null check per hook: `tracing` is null and `ctx.trace` stays null.
 *
 * The spans themselves are request-trace.ts's. The hooks: pipeline.ts (start, end), call.ts (a call
 * is sent, answers, opens a stream), attempts.ts (an attempt is recorded, or a target passed over),
 * relay.ts (a relayed stream ends).
 */
import type * as Api from '@opentelemetry/api';
import type { Tracing } from './context-types.ts';
import type { Logger } from '../kernel/logger.ts';
import { createDiagLogger } from '../kernel/otel-diag.ts';
import { createTracing } from './request-trace.ts';
import { startTraceSdk, TRACE_PROTOCOLS } from '../kernel/otel-sdk.ts';

export type { AttemptTrace, RequestTrace, StreamEnd, Tracing } from './context-types.ts';

/** Non-null only while tracing is on: the request path's one check. */
export let tracing: Tracing | null = null;
let shutdown: ((timeoutMs: number) => Promise<void>) | null = null;

/**
 * How long the spans still buffered get at shutdown. A collector that is down or does not answer
 * must not hold the exit past the orchestrator's grace period (the drain comes first).
 */
export const TRACE_FLUSH_TIMEOUT_MS = 5_000;

/** Whether the environment asks for traces (the standard OTLP variables). */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return false;
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  return !(env.OTEL_TRACES_EXPORTER ?? '').split(',').map((s) => s.trim()).includes('none');
}

/**
 * Starts the SDK when the environment asks for traces (once per process). The SDK itself reads
 * process.env, as every OpenTelemetry SDK does. An endpoint the exporter cannot use leaves tracing
 * off, with a warning, rather than stopping the gateway.
 */
export async function initTracing(logger: Logger, version: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (tracing || !tracingRequested(env)) return;
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const endpoint = env[variable]!;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (!(TRACE_PROTOCOLS as readonly string[]).includes(protocol)) {
    logger.warn(`tracing off: OTEL_EXPORTER_OTLP_PROTOCOL must be one of ${TRACE_PROTOCOLS.join(', ')} (this build carries no gRPC exporter: a collector takes OTLP/HTTP on port 4318)`, { protocol });
    return;
  }
  if (!usableEndpoint(endpoint)) {
    logger.warn(`tracing off: ${variable} must be an http:// or https:// URL`, { endpoint: loggableEndpoint(endpoint), protocol });
    return;
  }
  const [api, core] = await Promise.all([import('@opentelemetry/api'), import('@opentelemetry/core')]);
  const named = env.OTEL_SERVICE_NAME || /(^|,)\s*service\.name=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  // Before the set-up, which reports the settings it cannot use. Spans are parented explicitly: no
  // AsyncLocalStorage context manager on every promise. Traces only: metrics are Prometheus'
  // (/metrics), logs are the JSON lines on stderr.
  const level = core.diagLogLevelFromString(env.OTEL_LOG_LEVEL) ?? api.DiagLogLevel.WARN;
  api.diag.setLogger(createDiagLogger(logger), { logLevel: level, suppressOverrideMessage: true });
  const sdk = await startTraceSdk({ protocol, version, ...(named ? {} : { serviceName: 'llm-gateway' }) });
  shutdown = (timeoutMs) => stopWithin(sdk, timeoutMs, logger);
  // Upstreams get the trace context only: OTEL_PROPAGATORS also governs what the gateway reads
  // from clients, and its default (tracecontext,baggage) would hand the client's baggage, which
  // may hold personal data, to every third-party provider.
  tracing = createTracing(api, api.trace.getTracer('llm-gateway', version), new core.W3CTraceContextPropagator());
  logger.info('tracing on', { endpoint: loggableEndpoint(endpoint), protocol });
}

/** Exports the spans still buffered, then stops the SDK (on shutdown; a no-op when off). Never rejects. */
export async function shutdownTracing(timeoutMs = TRACE_FLUSH_TIMEOUT_MS): Promise<void> {
  const stop = shutdown;
  tracing = null;
  shutdown = null;
  await stop?.(timeoutMs);
}

/** The SDK's shutdown, bounded; a failure is one warning, never a crash of the exit. */
async function stopWithin(sdk: { shutdown(): Promise<void> }, timeoutMs: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, timeoutMs, 'late')));
  try {
    if ((await Promise.race([sdk.shutdown(), late])) === 'late') {
      logger.warn('trace export at shutdown timed out: the spans still buffered are lost', { timeout_ms: timeoutMs });
    }
  } catch (error) {
    logger.warn('trace export at shutdown failed: the spans still buffered are lost', { error: String(error) });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether the trace exporter can send to `endpoint`. The HTTP exporters need an http(s) URL: a
 * bare `host:4318` parses as a URL of the scheme `host:`, and every span would be lost without a
 * word.
 */
function usableEndpoint(endpoint: string): boolean {
  try {
    return /^https?:$/.test(new URL(endpoint).protocol);
  } catch {
    return false;
  }
}

/** The endpoint as it may be logged: without user, password or query, which may carry a token. */
export function loggableEndpoint(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    if (/^https?:$/.test(url.protocol)) return url.origin + (url.pathname === '/' ? '' : url.pathname);
  } catch {
    // not a URL: cleaned below
  }
  return endpoint.replace(/^([a-z][\w+.-]*:\/\/)?[^/@]*@/i, '$1').replace(/[?#].*$/, '');
}
