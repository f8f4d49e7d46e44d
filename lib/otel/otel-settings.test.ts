import { describe, expect, it } from 'vitest';
import { OtelConfigError, otelSettingsFromEnv } from './otel-settings';

describe('otelSettingsFromEnv', () => {
  it('is off (null) without an OTLP endpoint: nothing is loaded or added', () => {
    expect(otelSettingsFromEnv({})).toBeNull();
    expect(
      otelSettingsFromEnv({ OTEL_SERVICE_NAME: 'x', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }),
    ).toBeNull();
  });

  it('posts to <OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces, as service `toolscope`, without content by default', () => {
    expect(otelSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' })).toEqual({
      tracesUrl: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'toolscope',
      captureContent: false,
      batch: { maxQueueSize: 16_384, maxExportBatchSize: 1_024, scheduledDelayMillis: 1_000 },
      warnings: [],
    });
    expect(otelSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/base/' })?.tracesUrl).toBe(
      'https://otel.example.com/base/v1/traces',
    );
  });

  it('takes the traces endpoint as is, the service name, content capture and the OTEL_BSP_* the SDK reads', () => {
    const settings = otelSettingsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/otlp/v1/traces',
      OTEL_SERVICE_NAME: ' agent-tools ',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    expect(settings).toMatchObject({
      tracesUrl: 'http://tempo:4318/otlp/v1/traces',
      serviceName: 'agent-tools',
      captureContent: true,
      // The SDK reads OTEL_BSP_SCHEDULE_DELAY itself: Toolscope does not set it over the variable.
      batch: { maxQueueSize: 16_384, maxExportBatchSize: 1_024 },
    });
    expect(settings?.batch).not.toHaveProperty('scheduledDelayMillis');
  });

  it('is off when the SDK is disabled or no otlp exporter is named', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' };
    expect(otelSettingsFromEnv({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(otelSettingsFromEnv({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(otelSettingsFromEnv({ ...endpoint, OTEL_TRACES_EXPORTER: 'console,otlp' })).not.toBeNull();
  });

  it('refuses an endpoint that is not an http(s) URL and the gRPC protocol, naming the variable', () => {
    expect(() => otelSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' })).toThrow(OtelConfigError);
    expect(() => otelSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT=localhost:4318 is not an http\(s\) URL/,
    );
    expect(() =>
      otelSettingsFromEnv({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://x/v1/traces',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ok',
      }),
    ).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
    expect(() =>
      otelSettingsFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL=grpc: Toolscope exports over OTLP\/HTTP;/);
  });

  it("sends http/protobuf (the spec's default) unless the protocol variable says http/json; warns of an unknown one", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' };
    expect(otelSettingsFromEnv(endpoint)?.protocol).toBe('http/protobuf');
    expect(otelSettingsFromEnv({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })?.protocol).toBe('http/json');
    // The signal's own variable wins over the general one.
    const both = otelSettingsFromEnv({
      ...endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
    });
    expect(both?.protocol).toBe('http/protobuf');
    expect(both?.warnings).toEqual([]);
    const unknown = otelSettingsFromEnv({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/xml' });
    expect(unknown?.protocol).toBe('http/protobuf');
    expect(unknown?.warnings).toEqual([
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/xml is not an OTLP protocol; Toolscope sends http/protobuf.',
    ]);
  });
});
