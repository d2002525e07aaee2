import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { problemsOf } from '../../test/helpers/config-problems.js';

describe('tracing settings (OTEL_* variables)', () => {
  it('is off without an OTLP endpoint, whatever else is set', () => {
    expect(loadConfig({ OTEL_SERVICE_NAME: 'edge', OTEL_TRACES_SAMPLER: 'always_on' }).tracing).toEqual({
      enabled: false,
      protocol: 'http/protobuf',
      serviceName: 'edge',
    });
  });

  it('is on with either endpoint variable; protobuf unless http/json is asked for', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toEqual({
      enabled: true,
      protocol: 'http/protobuf',
      serviceName: 'gateway',
    });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }).tracing,
    ).toEqual({
      enabled: true,
      protocol: 'http/json',
      serviceName: 'gateway',
    });
    // The traces-specific protocol wins over the general one.
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }).tracing.protocol,
    ).toBe('http/protobuf');
  });

  it('stays off with an endpoint when OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER is none', () => {
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' }).tracing.enabled,
    ).toBe(false);
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing.enabled,
    ).toBe(false);
  });

  it('names every value it cannot honour', () => {
    expect(
      problemsOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_TRACES_EXPORTER: 'zipkin',
        OTEL_SDK_DISABLED: 'maybe',
        OTEL_TRACES_SAMPLER: 'sometimes',
      }),
    ).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an absolute http(s) URL (got "collector:4318")',
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (got "grpc"; grpc is not supported)',
      'OTEL_TRACES_EXPORTER must be otlp or none (got "zipkin")',
      'OTEL_SDK_DISABLED must be true or false (got "maybe")',
      'OTEL_TRACES_SAMPLER must be one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio (got "sometimes")',
    ]);
    expect(problemsOf({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toEqual([
      'OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1 for parentbased_traceidratio (got "1.5")',
    ]);
  });
});
