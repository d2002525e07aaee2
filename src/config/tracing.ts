import type { ReadSetting } from './settings.js';

/**
 * Whether the daemon traces (docs/tracing.md), read from the standard OpenTelemetry variables. The
 * OpenTelemetry SDK reads the rest of them itself when it starts (headers, timeout, compression,
 * batch sizes, span limits, resource attributes); this decides only on or off and refuses values
 * the daemon cannot honour, so a bad start names them with the other bad keys.
 */
export interface TracingConfig {
  /**
   * On when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
   * OTEL_EXPORTER_OTLP_ENDPOINT), unless OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER is none.
   * Off: no SDK is loaded and every span is the @opentelemetry/api no-op.
   */
  enabled: boolean;
  /** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf (default) or http/json. */
  protocol: OtlpProtocol;
  /** OTEL_SERVICE_NAME; default `gateway`. */
  serviceName: string;
}

export type OtlpProtocol = 'http/protobuf' | 'http/json';

const PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'http/json'];
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];
const RATIO_SAMPLERS = ['traceidratio', 'parentbased_traceidratio'];

/** Reads the tracing settings; pushes one line per bad variable onto `problems`. */
export function readTracingConfig(read: ReadSetting, problems: string[]): TracingConfig {
  const tracesEndpoint = read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseEndpoint = read('OTEL_EXPORTER_OTLP_ENDPOINT');
  for (const [key, value] of [
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', baseEndpoint],
  ] as const) {
    if (value !== undefined && !/^https?:\/\/[^\s/?#]+(\/[^\s#]*)?$/.test(value))
      problems.push(`${key} must be an absolute http(s) URL (got "${value}")`);
  }

  const protocolKey =
    read('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') !== undefined
      ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
      : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = read(protocolKey) ?? 'http/protobuf';
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
    problems.push(`${protocolKey} must be http/protobuf or http/json (got "${protocol}"; grpc is not supported)`);
  }

  const exporter = read('OTEL_TRACES_EXPORTER') ?? 'otlp';
  if (exporter !== 'otlp' && exporter !== 'none')
    problems.push(`OTEL_TRACES_EXPORTER must be otlp or none (got "${exporter}")`);

  const disabledText = (read('OTEL_SDK_DISABLED') ?? 'false').toLowerCase();
  if (disabledText !== 'true' && disabledText !== 'false')
    problems.push(`OTEL_SDK_DISABLED must be true or false (got "${disabledText}")`);

  const sampler = read('OTEL_TRACES_SAMPLER');
  if (sampler !== undefined && !SAMPLERS.includes(sampler))
    problems.push(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')} (got "${sampler}")`);
  const ratio = read('OTEL_TRACES_SAMPLER_ARG');
  if (
    ratio !== undefined &&
    sampler !== undefined &&
    RATIO_SAMPLERS.includes(sampler) &&
    !(/^\d+(\.\d+)?$/.test(ratio) && Number(ratio) <= 1)
  ) {
    problems.push(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1 for ${sampler} (got "${ratio}")`);
  }

  return {
    enabled: (tracesEndpoint ?? baseEndpoint) !== undefined && disabledText !== 'true' && exporter !== 'none',
    protocol: protocol === 'http/json' ? 'http/json' : 'http/protobuf',
    serviceName: read('OTEL_SERVICE_NAME') ?? 'gateway',
  };
}
