import { context, diag, propagation, trace, DiagLogLevel } from '@opentelemetry/api';
import type { TracingConfig } from '../config/tracing.js';
import { useTraceContext } from './tracer.js';

/** What identifies this process in every span it exports (the OpenTelemetry resource). */
export interface TracedProcess {
  /** `all`, `core` or `worker` (`gateway serve --role`). */
  role: string;
  /** The package version (service.version). */
  version: string;
}

/** The SDK running in this process. */
export interface RunningTracing {
  /** Exports every span ended so far (tests, and the bench before it stops a daemon). */
  flush(): Promise<void>;
  /** Exports what is left and unregisters the SDK: tracing is off again afterwards. */
  shutdown(): Promise<void>;
}

/** Where the SDK's own complaints go (an export that failed, a bad OTEL_* value it ignored). */
export interface TracingDiagnostics {
  warn(message: string): void;
}

/**
 * Starts the OpenTelemetry SDK when tracing is configured (docs/tracing.md), and answers null
 * otherwise: then nothing of the SDK is even loaded, and the @opentelemetry/api hands out no-op spans.
 *
 * The official packages do the work: NodeTracerProvider (AsyncLocalStorage context, W3C trace
 * context and baggage propagation, the sampler of OTEL_TRACES_SAMPLER), a BatchSpanProcessor
 * (OTEL_BSP_*), and the OTLP/HTTP exporter of the configured protocol, which reads its endpoint,
 * headers, timeout and compression from the OTEL_EXPORTER_OTLP_* variables itself. The resource
 * names the service (OTEL_SERVICE_NAME, default `gateway`), its version and its role; attributes of
 * OTEL_RESOURCE_ATTRIBUTES are added.
 */
export async function startTracing(
  config: TracingConfig,
  identity: TracedProcess,
  diagnostics?: TracingDiagnostics,
): Promise<RunningTracing | null> {
  if (!config.enabled) return null;
  const [
    { NodeTracerProvider, BatchSpanProcessor },
    { W3CTraceContextPropagator },
    { detectResources, envDetector, resourceFromAttributes },
    { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const { OTLPTraceExporter } =
    config.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');

  if (diagnostics !== undefined) {
    const warn = (message: string, ...args: unknown[]) => diagnostics.warn([message, ...args.map(String)].join(' '));
    diag.setLogger({ error: warn, warn, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
  }
  // Defaults first: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over them.
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: config.serviceName,
    [ATTR_SERVICE_VERSION]: identity.version,
    'gateway.role': identity.role,
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  useTraceContext(new W3CTraceContextPropagator());

  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      useTraceContext(null);
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
      diag.disable();
    },
  };
}
