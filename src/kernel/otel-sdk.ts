/**
 * The OpenTelemetry trace pipeline, set up from the standard environment variables the way the
 * Node.js SDK (@opentelemetry/sdk-node) does it, with only the packages traces over OTLP/HTTP
 * need: the SDK package brought every exporter (gRPC, Zipkin, Prometheus, metrics and logs),
 * instrumentation hooks and propagators into the image, ~25 MB never loaded (issue 33).
 *
 * Read here, as the SDK reads them: OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL (`http/protobuf` by
 * default, `http/json`), OTEL_TRACES_SAMPLER(_ARG), OTEL_SPAN_*_LIMIT and OTEL_ATTRIBUTE_*_LIMIT,
 * OTEL_BSP_*, OTEL_PROPAGATORS (`tracecontext`, `baggage`, `none`), OTEL_NODE_RESOURCE_DETECTORS.
 * The exporters read OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout, compression) themselves,
 * the env detector OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
 * Imported only by tracing.ts, and only dynamically: off, none of this is loaded.
 */
import type * as Api from '@opentelemetry/api';
import type * as Core from '@opentelemetry/core';
import type * as Resources from '@opentelemetry/resources';
import type * as Trace from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_VERSION } from './semconv.ts';

/** The packages, imported when tracing starts (static imports would be hoisted into the bundle's head). */
interface Otel {
  api: typeof Api;
  core: typeof Core;
  resources: typeof Resources;
  trace: typeof Trace;
}

/** The protocols this build exports traces over. */
export const TRACE_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

export interface TraceSdk {
  provider: Trace.TracerProvider;
  shutdown(): Promise<void>;
}

/**
 * Builds and registers (global tracer provider and propagator) the trace pipeline. `resource`
 * is the gateway's own (service.version), under what the detectors find; `serviceName` is set
 * when the environment names none.
 */
export async function startTraceSdk(options: { protocol: string; version: string; serviceName?: string }): Promise<TraceSdk> {
  const [api, core, resources, trace] = await Promise.all([
    import('@opentelemetry/api'), import('@opentelemetry/core'), import('@opentelemetry/resources'), import('@opentelemetry/sdk-trace'),
  ]);
  const otel: Otel = { api, core, resources, trace };
  const { getNumberFromEnv } = core;
  // The version first; what the detectors find (OTEL_RESOURCE_ATTRIBUTES) overrides it.
  let resource = resources.defaultResource()
    .merge(resources.resourceFromAttributes({ [ATTR_SERVICE_VERSION]: options.version }))
    .merge(resources.detectResources({ detectors: detectorsFromEnv(otel) }));
  if (options.serviceName) resource = resource.merge(resources.resourceFromAttributes({ 'service.name': options.serviceName }));
  const sampler = samplerFromEnv(otel);
  const nonNegative = (name: string) => {
    const value = getNumberFromEnv(name);
    return value != null && value >= 0 ? value : undefined;
  };
  const provider = new trace.TracerProvider({
    resource,
    ...(sampler ? { sampler } : {}),
    spanLimits: {
      attributeCountLimit: getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT') ?? getNumberFromEnv('OTEL_ATTRIBUTE_COUNT_LIMIT'),
      attributeValueLengthLimit: getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT') ?? getNumberFromEnv('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'),
      eventCountLimit: getNumberFromEnv('OTEL_SPAN_EVENT_COUNT_LIMIT'),
      linkCountLimit: getNumberFromEnv('OTEL_SPAN_LINK_COUNT_LIMIT'),
    },
    spanProcessors: [
      new trace.BatchSpanProcessor({
        exporter: await exporterFor(options.protocol),
        maxQueueSize: nonNegative('OTEL_BSP_MAX_QUEUE_SIZE'),
        scheduledDelayMillis: nonNegative('OTEL_BSP_SCHEDULE_DELAY'),
        exportTimeoutMillis: nonNegative('OTEL_BSP_EXPORT_TIMEOUT'),
        maxExportBatchSize: nonNegative('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
      }),
    ],
  });
  api.trace.setGlobalTracerProvider(provider);
  const propagator = propagatorFromEnv(otel);
  if (propagator) api.propagation.setGlobalPropagator(propagator);
  return { provider, shutdown: () => provider.shutdown() };
}

async function exporterFor(protocol: string): Promise<Trace.SpanExporter> {
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

function samplerFromEnv({ api, core: { getNumberFromEnv, getStringFromEnv }, trace }: Otel): Trace.Sampler | undefined {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = trace;
  const ratio = () => {
    const r = getNumberFromEnv('OTEL_TRACES_SAMPLER_ARG');
    return r != null && r >= 0 && r <= 1 ? r : 1;
  };
  switch (getStringFromEnv('OTEL_TRACES_SAMPLER')) {
    case 'always_on': return new AlwaysOnSampler();
    case 'always_off': return new AlwaysOffSampler();
    case 'parentbased_always_on': return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'traceidratio': return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    case undefined: return undefined;
    default:
      api.diag.error(`unknown OTEL_TRACES_SAMPLER value "${getStringFromEnv('OTEL_TRACES_SAMPLER')}", using the default (parentbased_always_on)`);
      return undefined;
  }
}

/** What the client's trace context is read with (tracecontext,baggage by default, as the SDK's). */
function propagatorFromEnv({ api, core }: Otel): Api.TextMapPropagator | null {
  const { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } = core;
  const names = [...new Set(core.getStringListFromEnv('OTEL_PROPAGATORS') ?? ['tracecontext', 'baggage'])];
  if (names.includes('none')) return null;
  const known: Record<string, () => Api.TextMapPropagator> = {
    tracecontext: () => new W3CTraceContextPropagator(),
    baggage: () => new W3CBaggagePropagator(),
  };
  const propagators = names.flatMap((name) => {
    if (known[name]) return [known[name]()];
    api.diag.warn(`OTEL_PROPAGATORS: "${name}" is not available in this build (tracecontext, baggage, none)`);
    return [];
  });
  return propagators.length ? new CompositePropagator({ propagators }) : null;
}

/** The SDK's default set (with service.instance.id), or OTEL_NODE_RESOURCE_DETECTORS. */
function detectorsFromEnv({ api, core, resources }: Otel): Resources.ResourceDetector[] {
  const all: Record<string, Resources.ResourceDetector> = {
    serviceinstance: resources.serviceInstanceIdDetector,
    env: resources.envDetector,
    process: resources.processDetector,
    host: resources.hostDetector,
    os: resources.osDetector,
  };
  const names = core.getStringListFromEnv('OTEL_NODE_RESOURCE_DETECTORS');
  if (!names) return [all.serviceinstance!, all.env!, all.process!, all.host!];
  if (names.includes('all')) return Object.values(all);
  if (names.includes('none')) return [];
  return names.flatMap((name) => {
    if (all[name]) return [all[name]];
    api.diag.warn(`Invalid resource detector "${name}" specified in the environment variable OTEL_NODE_RESOURCE_DETECTORS`);
    return [];
  });
}
