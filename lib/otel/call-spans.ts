import {
  type Attributes,
  type Context,
  createTraceState,
  DiagLogLevel,
  diag,
  type HrTime,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type IdGenerator,
  RandomIdGenerator,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_DESCRIPTION,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
} from '@opentelemetry/semantic-conventions/incubating';
import type { Attempt, TraceRecord, TraceStage } from '../executor/types';
import type { OtelSettings } from './otel-settings';
import { callSpanIds } from './trace-context';

/** What the exporter needs to know of the tools besides the record. */
export interface ToolInfo {
  description?: string;
  /** `function` for Toolscope's own tools, `extension` for tools of upstream (MCP) servers. */
  type: 'function' | 'extension';
}

export interface CallSpanOptions {
  /** The registry's view of a tool; unknown tools are `function`s without a description. */
  toolInfo?: (name: string) => ToolInfo | undefined;
  /** Where export failures are said (rate-limited). Default `console.error`. */
  log?: (message: string) => void;
  /** Replaces the OTLP/HTTP exporter (tests). */
  exporter?: SpanExporter;
}

export interface CallSpans {
  /** Turns a finished call's record into its spans, queued for export (never throws for a record). */
  export(record: TraceRecord): void;
  /** Exports what is queued; resolves when done (or failed). */
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Argument and result values longer than this are cut (with a marker) before they become attributes. */
export const MAX_CONTENT_CHARS = 16 * 1024;
const MAX_DETAIL_CHARS = 1024;
const REPORT_EVERY_MS = 60_000;

/**
 * The OpenTelemetry side of a call, built once it has finished (its record says everything):
 * 1. an `execute_tool {tool}` span (INTERNAL) from the call's start to its end, with the GenAI
 *    attributes, the session as `gen_ai.conversation.id`, `error.type` and status ERROR on failure;
 *    its ids are `callSpanIds` (the parent's trace when the request had a `traceparent`), so a tool
 *    that called out during the call (`http_request`) already named it as its parent;
 * 2. a `stage {name}` child per stage that ran (skipped ones are left out);
 * 3. an `attempt {n}` child per attempt, under the execute stage's span, with its fault and backoff.
 * Arguments and result only with `captureContent`, and then the redacted ones the record holds.
 * Spans go through a batch span processor (bounded queue, batched export) to the OTLP/HTTP exporter.
 */
export function createCallSpans(settings: OtelSettings, options: CallSpanOptions = {}): CallSpans {
  const log = options.log ?? ((message: string) => console.error(message));
  reportOtelErrors(log);
  const ids = new CallIdGenerator();
  const exporter = options.exporter ?? new OTLPTraceExporter({ url: settings.tracesUrl });
  const provider = new BasicTracerProvider({
    resource: defaultResource()
      .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }))
      // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME of the process win, as the spec says.
      .merge(detectResources({ detectors: [envDetector] })),
    idGenerator: ids,
    spanProcessors: [new BatchSpanProcessor(exporter, { ...settings.batch })],
  });
  const tracer = provider.getTracer('toolscope');
  const toolInfo = options.toolInfo ?? (() => undefined);

  return {
    export(record) {
      try {
        exportCall(tracer, ids, record, toolInfo(record.tool), settings.captureContent);
      } catch (error) {
        log(`[toolscope] could not turn trace ${record.id} into spans: ${String(error)}`);
      }
    },
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/**
 * Random ids, except for the call's span: its ids are set just before it starts and cleared just
 * after (the tracer asks synchronously, for the span id first, then for a trace id when it has no parent).
 */
class CallIdGenerator implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  next: { traceId: string; spanId: string } | null = null;
  generateTraceId(): string {
    return this.next?.traceId ?? this.random.generateTraceId();
  }
  generateSpanId(): string {
    return this.next?.spanId ?? this.random.generateSpanId();
  }
}

function exportCall(
  tracer: Tracer,
  ids: CallIdGenerator,
  record: TraceRecord,
  info: ToolInfo | undefined,
  captureContent: boolean,
): void {
  const start = record.createdAt;
  const end = record.finishedAt ?? start + (record.latencyMs ?? 0);
  const incoming = record.traceContext;
  const parent: Context = incoming
    ? trace.setSpanContext(ROOT_CONTEXT, {
        traceId: incoming.traceId,
        spanId: incoming.spanId,
        traceFlags: incoming.flags,
        isRemote: true,
        traceState: incoming.tracestate ? createTraceState(incoming.tracestate) : undefined,
      })
    : ROOT_CONTEXT;
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    [ATTR_GEN_AI_TOOL_NAME]: record.tool,
    [ATTR_GEN_AI_TOOL_CALL_ID]: record.toolCallId,
    [ATTR_GEN_AI_TOOL_TYPE]: info?.type ?? 'function',
    'toolscope.trace_id': record.id,
    'toolscope.status': record.status,
    'toolscope.attempts': record.attempts.length,
    'toolscope.actor': record.actor,
  };
  if (info?.description) attributes[ATTR_GEN_AI_TOOL_DESCRIPTION] = info.description;
  if (record.sessionId) attributes[ATTR_GEN_AI_CONVERSATION_ID] = record.sessionId;
  if (record.batchId) attributes['toolscope.batch_id'] = record.batchId;
  if (record.replayOf) attributes['toolscope.replay_of'] = record.replayOf;
  if (record.servedFrom) attributes['toolscope.served_from'] = record.servedFrom;
  if (record.sideEffect) attributes['toolscope.side_effect'] = record.sideEffect;
  if (record.approval) {
    attributes['toolscope.approval.decision'] = record.approval.decision ?? 'pending';
    if (record.approval.decidedAt !== null) {
      attributes['toolscope.approval.wait_ms'] = record.approval.decidedAt - record.approval.requestedAt;
    }
  }
  if (record.error) attributes[ATTR_ERROR_TYPE] = record.error.code;
  if (captureContent) {
    attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = content(record.editedArguments ?? record.arguments);
    if (!record.error && record.output !== null && record.output !== undefined) {
      attributes[ATTR_GEN_AI_TOOL_CALL_RESULT] = content(record.output);
    }
  }

  ids.next = callSpanIds(record.id, incoming);
  let call: Span;
  try {
    call = tracer.startSpan(
      `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${record.tool}`,
      { kind: SpanKind.INTERNAL, startTime: hrTime(start), attributes },
      parent,
    );
  } finally {
    ids.next = null;
  }
  if (record.error)
    call.setStatus({ code: SpanStatusCode.ERROR, message: cut(record.error.message, MAX_DETAIL_CHARS) });
  if (call.isRecording()) {
    const inCall = trace.setSpan(ROOT_CONTEXT, call);
    let executeContext = inCall;
    for (const stage of record.stages) {
      if (stage.status === 'skipped') continue;
      const span = stageSpan(tracer, inCall, stage, start);
      if (stage.name === 'execute') executeContext = trace.setSpan(ROOT_CONTEXT, span);
      span.end(hrTime(start + stage.startedAt + stage.durationMs));
    }
    for (const attempt of record.attempts) attemptSpan(tracer, executeContext, attempt, start);
  }
  call.end(hrTime(end));
}

function stageSpan(tracer: Tracer, parent: Context, stage: TraceStage, callStart: number): Span {
  const attributes: Attributes = { 'toolscope.stage': stage.name, 'toolscope.stage.status': stage.status };
  if (stage.detail) attributes['toolscope.stage.detail'] = cut(stage.detail, MAX_DETAIL_CHARS);
  const span = tracer.startSpan(
    `stage ${stage.name}`,
    { kind: SpanKind.INTERNAL, startTime: hrTime(callStart + stage.startedAt), attributes },
    parent,
  );
  if (stage.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR });
  return span;
}

function attemptSpan(tracer: Tracer, parent: Context, attempt: Attempt, callStart: number): void {
  const attributes: Attributes = {
    'toolscope.attempt.number': attempt.number,
    'toolscope.attempt.tool': attempt.tool,
    'toolscope.attempt.fallback': attempt.fallback,
    'toolscope.attempt.outcome': attempt.outcome,
  };
  if (attempt.timeoutMs !== undefined) attributes['toolscope.attempt.timeout_ms'] = attempt.timeoutMs;
  if (attempt.backoffMs !== null) attributes['toolscope.attempt.backoff_ms'] = attempt.backoffMs;
  if (attempt.backoffReason) attributes['toolscope.attempt.backoff_reason'] = attempt.backoffReason;
  if (attempt.error) attributes[ATTR_ERROR_TYPE] = attempt.error.code;
  if (attempt.fault) {
    const { ruleId, ruleName, kind, ...params } = attempt.fault;
    attributes['toolscope.fault.kind'] = kind;
    if (ruleId) attributes['toolscope.fault.rule_id'] = ruleId;
    if (ruleName) attributes['toolscope.fault.rule_name'] = ruleName;
    if (Object.keys(params).length > 0) attributes['toolscope.fault.params'] = JSON.stringify(params);
  }
  const started = callStart + attempt.startedAt;
  const span = tracer.startSpan(
    `attempt ${attempt.number}`,
    { kind: SpanKind.INTERNAL, startTime: hrTime(started), attributes },
    parent,
  );
  if (attempt.error)
    span.setStatus({ code: SpanStatusCode.ERROR, message: cut(attempt.error.message, MAX_DETAIL_CHARS) });
  span.end(hrTime(started + attempt.durationMs));
}

/**
 * Epoch milliseconds (fractions kept) as OpenTelemetry's [seconds, nanoseconds]. A bare number
 * will not do: the SDK reads one smaller than the process's start as `performance.now()`, and a
 * call taken up after a restart began before this process did.
 */
function hrTime(epochMs: number): HrTime {
  const seconds = Math.floor(epochMs / 1000);
  const nanos = Math.min(999_999_999, Math.max(0, Math.round((epochMs - seconds * 1000) * 1e6)));
  return [seconds, nanos];
}

/** A redacted value as an attribute: JSON (a string as it is), cut at `MAX_CONTENT_CHARS`. */
function content(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
  } catch {
    text = String(value);
  }
  return cut(text, MAX_CONTENT_CHARS);
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters cut by Toolscope]`;
}

/**
 * Export failures (a collector down, refusing or slow) reach the SDK's global error handler and
 * its diagnostic logger; both are said at most once a minute, with how many were not.
 */
function reportOtelErrors(log: (message: string) => void): void {
  let last = Number.NEGATIVE_INFINITY;
  let unsaid = 0;
  const report = (what: string) => {
    const now = Date.now();
    if (now - last < REPORT_EVERY_MS) {
      unsaid++;
      return;
    }
    const more = unsaid > 0 ? ` (${unsaid} more since the last report)` : '';
    last = now;
    unsaid = 0;
    log(`[toolscope] OpenTelemetry export: ${what}${more}; calls are not affected`);
  };
  setGlobalErrorHandler((error) => report(error instanceof Error ? error.message : String(error)));
  const say = (message: string, ...args: unknown[]) => report([message, ...args.map(String)].join(' '));
  diag.setLogger(
    { error: say, warn: say, info: () => {}, debug: () => {}, verbose: () => {} },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
}
