import type { SecondarySink } from '../executor/fan-out-sink';
import { packCallItem, type ToolInfo } from './call-spans';
import type { OtelSettings } from './otel-settings';
import { startCallSpansWorker } from './otel-worker';
import { callSpanIds, childOfCallSpan, type TracePropagation } from './trace-context';

export interface OtelExport {
  /** The exporter as a secondary sink of the fan-out: told of finished calls only, in batches. */
  sink: SecondarySink;
  /** What `http_request` sends on: the call's own span as the parent. */
  propagation: TracePropagation;
}

export interface OtelExportOptions {
  /** The registry's view of a tool; unknown tools are `function`s without a description. */
  toolInfo?: (name: string) => ToolInfo | undefined;
  /** Where export failures are said (rate-limited). Default `console.error`. */
  log?: (message: string) => void;
}

/**
 * OpenTelemetry export of calls (see `call-spans.ts`), for `createToolscope` when
 * `otelSettingsFromEnv` is not null. The SDK runs in a worker thread of its own
 * (`otel-worker.ts`), started only then: a Toolscope without `OTEL_EXPORTER_OTLP_ENDPOINT` never
 * loads it. The event loop only names each call's tool and span ids and posts the records, packed flat.
 */
export function createOtelExport(settings: OtelSettings, options: OtelExportOptions = {}): OtelExport {
  const log = options.log ?? ((message: string) => console.error(message));
  for (const warning of settings.warnings) log(`[toolscope] OpenTelemetry: ${warning}`);
  const toolInfo = options.toolInfo ?? (() => undefined);
  const worker = startCallSpansWorker(settings, log);
  return {
    propagation: childOfCallSpan,
    sink: {
      name: `OpenTelemetry ${displayUrl(settings.tracesUrl)}`,
      events: ['finish'],
      write(events) {
        // Only what the spans read goes to the worker, flat (see `packCallItem`).
        const packed: unknown[] = [];
        for (const { record } of events) {
          const ids = callSpanIds(record.id, record.traceContext);
          packCallItem(packed, record, settings.captureContent, toolInfo(record.tool), ids);
        }
        return worker.export(packed);
      },
      close: () => worker.shutdown(),
    },
  };
}

/** The endpoint without credentials or query, for logs. */
function displayUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
