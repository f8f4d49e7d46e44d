/** The environment as `process.env` is: names to values, unset ones absent. */
export type Env = Record<string, string | undefined>;

/** What OpenTelemetry export runs with, read from the standard `OTEL_*` variables. */
export interface OtelSettings {
  /** Where spans are posted (OTLP over HTTP): the traces endpoint itself, `…/v1/traces`. */
  tracesUrl: string;
  /**
   * How spans are encoded: `http/protobuf` (the spec's default, and what every OTLP/HTTP receiver
   * takes), or `http/json` when `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL` asks for it. Protobuf is a
   * third of the bytes of JSON and a quarter less CPU to serialize.
   */
  protocol: 'http/protobuf' | 'http/json';
  /** The resource's `service.name`: `OTEL_SERVICE_NAME`, else `toolscope`. */
  serviceName: string;
  /** `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`: spans carry the (redacted) arguments and result. */
  captureContent: boolean;
  /**
   * The batch span processor's options Toolscope sets where the `OTEL_BSP_*` variable is unset
   * (a set one wins: the SDK reads it). Sized for an agent's bursts: one call is a span per stage
   * and per attempt besides its own.
   */
  batch: { maxQueueSize?: number; maxExportBatchSize?: number; scheduledDelayMillis?: number };
  /** Said once at start (a protocol Toolscope does not speak, but can stand in for). */
  warnings: string[];
}

/** A setting OpenTelemetry export cannot run with; the message names the variable. */
export class OtelConfigError extends Error {
  override readonly name = 'OtelConfigError';
}

const TRUE = /^true$/i;
const BATCH_DEFAULTS = {
  maxQueueSize: ['OTEL_BSP_MAX_QUEUE_SIZE', 16_384],
  maxExportBatchSize: ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 1_024],
  scheduledDelayMillis: ['OTEL_BSP_SCHEDULE_DELAY', 1_000],
} as const;

/**
 * The OpenTelemetry settings of this process, or null when export is off: it is on when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (spans go to `<endpoint>/v1/traces`) or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is) is set, unless `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER` names no `otlp` exporter (`none`). Throws `OtelConfigError` for an
 * endpoint that is not an http(s) URL, or for the gRPC protocol (Toolscope sends OTLP/HTTP).
 * Headers (`OTEL_EXPORTER_OTLP_HEADERS`), timeout and `OTEL_BSP_*` are read by the SDK itself.
 */
export function otelSettingsFromEnv(env: Env = process.env): OtelSettings | null {
  if (TRUE.test(env.OTEL_SDK_DISABLED?.trim() ?? '')) return null;
  const exporters = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporters && !exporters.split(',').some((name) => name.trim() === 'otlp')) return null;
  const tracesUrl = tracesUrlOf(env);
  if (!tracesUrl) return null;
  const warnings: string[] = [];
  const [protocolVariable, protocol] = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL.trim()]
    : ['OTEL_EXPORTER_OTLP_PROTOCOL', env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() ?? ''];
  if (protocol === 'grpc') {
    throw new OtelConfigError(
      `${protocolVariable}=grpc: Toolscope exports over OTLP/HTTP; point the endpoint at the collector's HTTP port (usually 4318) and set http/protobuf (or http/json), or unset the variable.`,
    );
  }
  if (protocol && protocol !== 'http/json' && protocol !== 'http/protobuf') {
    warnings.push(`${protocolVariable}=${protocol} is not an OTLP protocol; Toolscope sends http/protobuf.`);
  }
  const batch: OtelSettings['batch'] = {};
  for (const [option, [variable, value]] of Object.entries(BATCH_DEFAULTS)) {
    if (env[variable] === undefined) batch[option as keyof typeof BATCH_DEFAULTS] = value;
  }
  return {
    tracesUrl,
    protocol: protocol === 'http/json' ? 'http/json' : 'http/protobuf',
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'toolscope',
    captureContent: TRUE.test(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim() ?? ''),
    batch,
    warnings,
  };
}

function tracesUrlOf(env: Env): string | null {
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (signal) return httpUrl(signal, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!base) return null;
  const url = httpUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  // The spec: the signal's path is appended to the base endpoint, whatever path it has.
  return `${url.replace(/\/+$/, '')}/v1/traces`;
}

function httpUrl(value: string, variable: string): string {
  const url = URL.canParse(value) ? new URL(value) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new OtelConfigError(
      `${variable}=${value} is not an http(s) URL; give the collector's OTLP/HTTP endpoint, e.g. http://localhost:4318.`,
    );
  }
  return value;
}
