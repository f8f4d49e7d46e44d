import type { SecondarySink } from '../executor/fan-out-sink';
import type { CallSpanOptions, CallSpans } from './call-spans';
import type { OtelSettings } from './otel-settings';
import { childOfCallSpan, type TracePropagation } from './trace-context';

export interface OtelExport {
  /** The exporter as a secondary sink of the fan-out: told of finished calls only, in batches. */
  sink: SecondarySink;
  /** What `http_request` sends on: the call's own span as the parent. */
  propagation: TracePropagation;
}

/**
 * OpenTelemetry export of calls (see `call-spans.ts`), for `createToolscope` when
 * `otelSettingsFromEnv` is not null. The SDK is loaded only then, and off the start's path
 * (a dynamic import): a Toolscope without `OTEL_EXPORTER_OTLP_ENDPOINT` never loads it.
 */
export function createOtelExport(settings: OtelSettings, options: CallSpanOptions = {}): OtelExport {
  const log = options.log ?? ((message: string) => console.error(message));
  for (const warning of settings.warnings) log(`[toolscope] OpenTelemetry: ${warning}`);
  const spans: Promise<CallSpans | null> = import('./call-spans').then(
    (module) => module.createCallSpans(settings, options),
    (error: unknown) => {
      log(`[toolscope] OpenTelemetry export is off: the SDK could not be loaded (${String(error)})`);
      return null;
    },
  );
  return {
    propagation: childOfCallSpan,
    sink: {
      name: `OpenTelemetry ${displayUrl(settings.tracesUrl)}`,
      events: ['finish'],
      async write(events) {
        const exporter = await spans;
        if (!exporter) return;
        for (const event of events) exporter.export(event.record);
      },
      async close() {
        await (await spans)?.shutdown();
      },
    },
  };
}

/** The endpoint without credentials or query, for logs. */
function displayUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
