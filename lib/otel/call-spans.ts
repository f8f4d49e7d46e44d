import type * as OtelApi from '@opentelemetry/api';
import type * as OtelCore from '@opentelemetry/core';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as OtelResources from '@opentelemetry/resources';
import type * as OtelSdk from '@opentelemetry/sdk-trace-base';
import type { Attempt, TraceRecord, TraceStage } from '../executor/types';
import type { OtelSettings } from './otel-settings';

/** What the exporter needs to know of the tools besides the record. */
export interface ToolInfo {
  description?: string;
  /** `function` for Toolscope's own tools, `extension` for tools of upstream (MCP) servers. */
  type: 'function' | 'extension';
}

/** A finished call as the exporter takes it: its record, its tool, and its span's ids (`callSpanIds`). */
/**
 * What the spans are made of: the record's fields `callSpansProgram` reads, the content only with
 * `captureContent` (see `spanRecordOf`). Typed, so that a field the spans start to read must be
 * added here; the raw (unredacted) arguments, stdout and the model message never leave the thread.
 */
export type SpanRecord = Pick<
  TraceRecord,
  | 'id'
  | 'toolCallId'
  | 'sessionId'
  | 'actor'
  | 'tool'
  | 'status'
  | 'sideEffect'
  | 'createdAt'
  | 'finishedAt'
  | 'latencyMs'
  | 'stages'
  | 'attempts'
  | 'error'
  | 'approval'
  | 'replayOf'
  | 'batchId'
  | 'servedFrom'
  | 'traceContext'
> &
  Partial<Pick<TraceRecord, 'arguments' | 'editedArguments' | 'output'>>;

/**
 * Finished calls for the worker, as one flat array of strings, numbers, booleans and nulls: the
 * structured clone of records (objects within objects) cost the event loop 5–8 µs a call, a flat
 * array under 1 µs. Per call: the fields of `SpanRecord` that are plain values, the tool's info,
 * the span ids, then the stages (5 slots each) and the attempts (11 slots each) after their
 * counts; the rare object fields (error, approval, trace context, an attempt's error and fault)
 * and the content as JSON text. The content (the redacted arguments and the output) only with
 * `captureContent`; the raw arguments, stdout and the model message never. `unpackCallItems`
 * reads it back in the worker.
 */
export function packCallItem(
  out: unknown[],
  record: TraceRecord,
  captureContent: boolean,
  info: ToolInfo | undefined,
  ids: { traceId: string; spanId: string },
): void {
  const json = (value: unknown) => {
    if (value === undefined) return null;
    try {
      return JSON.stringify(value) ?? null;
    } catch {
      return JSON.stringify(String(value));
    }
  };
  out.push(
    record.id,
    record.toolCallId,
    record.sessionId,
    record.actor,
    record.tool,
    record.status,
    record.sideEffect,
    record.createdAt,
    record.finishedAt,
    record.latencyMs,
    record.replayOf,
    record.batchId,
    record.servedFrom,
    record.error ? json(record.error) : null,
    record.approval ? json(record.approval) : null,
    record.traceContext ? json(record.traceContext) : null,
    info ? info.type : null,
    info?.description ?? null,
    ids.traceId,
    ids.spanId,
    captureContent,
  );
  if (captureContent) out.push(json(record.arguments), json(record.editedArguments), json(record.output));
  out.push(record.stages.length);
  for (const stage of record.stages)
    out.push(stage.name, stage.status, stage.startedAt, stage.durationMs, stage.detail);
  out.push(record.attempts.length);
  for (const attempt of record.attempts) {
    out.push(
      attempt.number,
      attempt.tool,
      attempt.fallback,
      attempt.startedAt,
      attempt.durationMs,
      attempt.outcome,
      attempt.timeoutMs ?? null,
      attempt.error ? json(attempt.error) : null,
      attempt.backoffMs,
      attempt.backoffReason ?? null,
      attempt.fault ? json(attempt.fault) : null,
    );
  }
}

/**
 * The calls `packCallItem` packed. Self-contained (the worker runs its source text), and it
 * trusts its input: only `packCallItem` writes it.
 */
export function unpackCallItems(flat: readonly unknown[]): CallItem[] {
  let at = 0;
  const next = () => flat[at++];
  const parsed = (text: unknown) => (text === null ? undefined : JSON.parse(text as string));
  const items: CallItem[] = [];
  while (at < flat.length) {
    const record = {
      id: next(),
      toolCallId: next(),
      sessionId: next(),
      actor: next(),
      tool: next(),
      status: next(),
      sideEffect: next(),
      createdAt: next(),
      finishedAt: next(),
      latencyMs: next(),
      replayOf: next(),
      batchId: next(),
      servedFrom: next(),
      error: parsed(next()) ?? null,
      approval: parsed(next()) ?? null,
      stages: [] as TraceStage[],
      attempts: [] as Attempt[],
    } as SpanRecord;
    const traceContext = parsed(next());
    if (traceContext) record.traceContext = traceContext;
    const type = next() as ToolInfo['type'] | null;
    const description = next() as string | null;
    const info: ToolInfo | undefined = type === null ? undefined : { type };
    if (info && description !== null) info.description = description;
    const ids = { traceId: next() as string, spanId: next() as string };
    if (next() === true) {
      record.arguments = parsed(next());
      record.editedArguments = parsed(next());
      record.output = parsed(next());
    }
    for (let n = next() as number; n > 0; n--) {
      record.stages.push({
        name: next() as TraceStage['name'],
        status: next() as TraceStage['status'],
        startedAt: next() as number,
        durationMs: next() as number,
        detail: next() as string | null,
      });
    }
    for (let n = next() as number; n > 0; n--) {
      const attempt = {
        number: next(),
        tool: next(),
        fallback: next(),
        startedAt: next(),
        durationMs: next(),
        outcome: next(),
      } as Attempt;
      const timeoutMs = next() as number | null;
      if (timeoutMs !== null) attempt.timeoutMs = timeoutMs;
      attempt.error = parsed(next()) ?? null;
      attempt.backoffMs = next() as number | null;
      const backoffReason = next() as string | null;
      if (backoffReason !== null) attempt.backoffReason = backoffReason;
      attempt.fault = parsed(next()) ?? null;
      record.attempts.push(attempt);
    }
    items.push(info ? { record, info, ids } : { record, ids });
  }
  return items;
}

export interface CallItem {
  record: SpanRecord;
  info?: ToolInfo;
  ids: { traceId: string; spanId: string };
}

export interface CallSpanOptions {
  /** Where export failures are said (rate-limited). Default `console.error`. */
  log?: (message: string) => void;
}

export interface CallSpans {
  /** Turns a finished call into its spans, queued for export (never throws for a record). */
  export(item: CallItem): void;
  /** Exports what is queued; resolves when done (or failed). */
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * The OpenTelemetry side of calls, built once each has finished (its record says everything):
 * 1. an `execute_tool {tool}` span (INTERNAL) from the call's start to its end, with the GenAI
 *    attributes, the session as `gen_ai.conversation.id`, `error.type` and status ERROR on failure;
 *    its ids are the item's (the parent's trace when the request had a `traceparent`), so a tool
 *    that called out during the call (`http_request`) already named it as its parent;
 * 2. a `stage {name}` child per stage that ran (skipped ones are left out);
 * 3. an `attempt {n}` child per attempt, under the execute stage's span, with its fault and backoff.
 * Arguments and result only with `captureContent`, and then the redacted ones the record holds.
 * Spans go through a batch span processor (bounded queue, batched export) to the OTLP/HTTP exporter
 * of the protocol the settings name (protobuf unless `http/json`).
 *
 * Self-contained (it reaches the SDK only through `load`, and names nothing outside itself), so
 * that its source text can run in a worker thread (`otel-worker.ts`): building spans and
 * serializing them costs ~60 µs a call, which the event loop must not pay.
 */
export function callSpansProgram(load: (id: string) => unknown) {
  const api = load('@opentelemetry/api') as typeof OtelApi;
  const core = load('@opentelemetry/core') as typeof OtelCore;
  const resources = load('@opentelemetry/resources') as typeof OtelResources;
  const sdk = load('@opentelemetry/sdk-trace-base') as typeof OtelSdk;
  // Argument and result values longer than this are cut (with a marker) before they become attributes.
  const MAX_CONTENT = 16 * 1024;
  const MAX_DETAIL_CHARS = 1024;
  const REPORT_EVERY_MS = 60_000;
  const ERROR_TYPE = 'error.type';

  const cut = (text: string, max: number) =>
    text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters cut by Toolscope]`;

  /** A redacted value as an attribute: JSON (a string as it is), cut at MAX_CONTENT. */
  const content = (value: unknown) => {
    let text: string;
    try {
      text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
    } catch {
      text = String(value);
    }
    return cut(text, MAX_CONTENT);
  };

  /**
   * Epoch milliseconds (fractions kept) as OpenTelemetry's [seconds, nanoseconds]. A bare number
   * will not do: the SDK reads one smaller than the process's start as `performance.now()`, and a
   * call taken up after a restart began before this process did.
   */
  const hrTime = (epochMs: number): OtelApi.HrTime => {
    const seconds = Math.floor(epochMs / 1000);
    const nanos = Math.min(999_999_999, Math.max(0, Math.round((epochMs - seconds * 1000) * 1e6)));
    return [seconds, nanos];
  };

  /**
   * Export failures (a collector down, refusing or slow) reach the SDK's global error handler and
   * its diagnostic logger; both are said at most once a minute, with how many were not.
   */
  const reportOtelErrors = (log: (message: string) => void) => {
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
    core.setGlobalErrorHandler((error) => report(error instanceof Error ? error.message : String(error)));
    const say = (message: string, ...args: unknown[]) => report([message, ...args.map(String)].join(' '));
    api.diag.setLogger(
      { error: say, warn: say, info: () => {}, debug: () => {}, verbose: () => {} },
      { logLevel: api.DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
  };

  const stageSpan = (tracer: OtelApi.Tracer, parent: OtelApi.Context, stage: TraceStage, callStart: number) => {
    const attributes: OtelApi.Attributes = { 'toolscope.stage': stage.name, 'toolscope.stage.status': stage.status };
    if (stage.detail) attributes['toolscope.stage.detail'] = cut(stage.detail, MAX_DETAIL_CHARS);
    const span = tracer.startSpan(
      `stage ${stage.name}`,
      { kind: api.SpanKind.INTERNAL, startTime: hrTime(callStart + stage.startedAt), attributes },
      parent,
    );
    if (stage.status === 'failed') span.setStatus({ code: api.SpanStatusCode.ERROR });
    return span;
  };

  const attemptSpan = (tracer: OtelApi.Tracer, parent: OtelApi.Context, attempt: Attempt, callStart: number) => {
    const attributes: OtelApi.Attributes = {
      'toolscope.attempt.number': attempt.number,
      'toolscope.attempt.tool': attempt.tool,
      'toolscope.attempt.fallback': attempt.fallback,
      'toolscope.attempt.outcome': attempt.outcome,
    };
    if (attempt.timeoutMs !== undefined) attributes['toolscope.attempt.timeout_ms'] = attempt.timeoutMs;
    if (attempt.backoffMs !== null) attributes['toolscope.attempt.backoff_ms'] = attempt.backoffMs;
    if (attempt.backoffReason) attributes['toolscope.attempt.backoff_reason'] = attempt.backoffReason;
    if (attempt.error) attributes[ERROR_TYPE] = attempt.error.code;
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
      { kind: api.SpanKind.INTERNAL, startTime: hrTime(started), attributes },
      parent,
    );
    if (attempt.error)
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: cut(attempt.error.message, MAX_DETAIL_CHARS) });
    span.end(hrTime(started + attempt.durationMs));
  };

  return function createCallSpans(settings: OtelSettings, options: CallSpanOptions = {}): CallSpans {
    const log = options.log ?? ((message: string) => console.error(message));
    reportOtelErrors(log);
    // Random ids, except for a call's own span: set just before it starts and cleared just after
    // (the tracer asks synchronously, for the span id first, then for a trace id when it has no parent).
    const random = new sdk.RandomIdGenerator();
    let next: { traceId: string; spanId: string } | null = null;
    const ids: OtelSdk.IdGenerator = {
      generateTraceId: () => next?.traceId ?? random.generateTraceId(),
      generateSpanId: () => next?.spanId ?? random.generateSpanId(),
    };
    // Both OTLP/HTTP exporters take the same options; the protobuf one is the spec's default.
    const otlp = load(
      settings.protocol === 'http/json'
        ? '@opentelemetry/exporter-trace-otlp-http'
        : '@opentelemetry/exporter-trace-otlp-proto',
    ) as typeof OtlpHttp;
    const exporter = new otlp.OTLPTraceExporter({ url: settings.tracesUrl });
    const provider = new sdk.BasicTracerProvider({
      resource: resources
        .defaultResource()
        .merge(resources.resourceFromAttributes({ 'service.name': settings.serviceName }))
        // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME of the process win, as the spec says.
        .merge(resources.detectResources({ detectors: [resources.envDetector] })),
      idGenerator: ids,
      spanProcessors: [new sdk.BatchSpanProcessor(exporter, { ...settings.batch })],
    });
    const tracer = provider.getTracer('toolscope');

    const exportCall = ({ record, info, ids: callIds }: CallItem) => {
      const start = record.createdAt;
      const end = record.finishedAt ?? start + (record.latencyMs ?? 0);
      const incoming = record.traceContext;
      const parent: OtelApi.Context = incoming
        ? api.trace.setSpanContext(api.ROOT_CONTEXT, {
            traceId: incoming.traceId,
            spanId: incoming.spanId,
            traceFlags: incoming.flags,
            isRemote: true,
            traceState: incoming.tracestate ? api.createTraceState(incoming.tracestate) : undefined,
          })
        : api.ROOT_CONTEXT;
      const attributes: OtelApi.Attributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': record.tool,
        'gen_ai.tool.call.id': record.toolCallId,
        'gen_ai.tool.type': info?.type ?? 'function',
        'toolscope.trace_id': record.id,
        'toolscope.status': record.status,
        'toolscope.attempts': record.attempts.length,
        'toolscope.actor': record.actor,
      };
      if (info?.description) attributes['gen_ai.tool.description'] = info.description;
      if (record.sessionId) attributes['gen_ai.conversation.id'] = record.sessionId;
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
      if (record.error) attributes[ERROR_TYPE] = record.error.code;
      if (settings.captureContent) {
        attributes['gen_ai.tool.call.arguments'] = content(record.editedArguments ?? record.arguments);
        if (!record.error && record.output !== null && record.output !== undefined) {
          attributes['gen_ai.tool.call.result'] = content(record.output);
        }
      }

      next = callIds;
      let call: OtelApi.Span;
      try {
        call = tracer.startSpan(
          `execute_tool ${record.tool}`,
          { kind: api.SpanKind.INTERNAL, startTime: hrTime(start), attributes },
          parent,
        );
      } finally {
        next = null;
      }
      if (record.error)
        call.setStatus({ code: api.SpanStatusCode.ERROR, message: cut(record.error.message, MAX_DETAIL_CHARS) });
      if (call.isRecording()) {
        const inCall = api.trace.setSpan(api.ROOT_CONTEXT, call);
        let executeContext = inCall;
        for (const stage of record.stages) {
          if (stage.status === 'skipped') continue;
          const span = stageSpan(tracer, inCall, stage, start);
          if (stage.name === 'execute') executeContext = api.trace.setSpan(api.ROOT_CONTEXT, span);
          span.end(hrTime(start + stage.startedAt + stage.durationMs));
        }
        for (const attempt of record.attempts) attemptSpan(tracer, executeContext, attempt, start);
      }
      call.end(hrTime(end));
    };

    return {
      export(item) {
        try {
          exportCall(item);
        } catch (error) {
          log(`[toolscope] could not turn trace ${item.record.id} into spans: ${String(error)}`);
        }
      },
      forceFlush: () => provider.forceFlush(),
      shutdown: () => provider.shutdown(),
    };
  };
}
