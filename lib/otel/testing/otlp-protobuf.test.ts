import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { decodeTraceExport } from './otlp-protobuf';

describe('decodeTraceExport', () => {
  it('reads a protobuf export as the JSON protocol carries the same spans', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer('test');
    const parent = tracer.startSpan('execute_tool calculator', {
      attributes: { 'gen_ai.tool.name': 'calculator', 'toolscope.attempts': 2, ok: true, ratio: 0.5, tags: ['a', 'b'] },
    });
    parent.setStatus({ code: 2, message: 'Division by zero' });
    const child = tracer.startSpan('stage parse', {}, trace.setSpan(ROOT_CONTEXT, parent));
    child.end();
    parent.end();
    const spans = exporter.getFinishedSpans();
    const fromJson = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)));
    const fromProtobuf = decodeTraceExport(ProtobufTraceSerializer.serializeRequest(spans) ?? new Uint8Array());
    const normalise = (request: typeof fromProtobuf) =>
      request.resourceSpans.flatMap((resource) =>
        resource.scopeSpans.flatMap((scope) =>
          scope.spans.map((span) => ({
            traceId: span.traceId,
            spanId: span.spanId,
            name: span.name,
            kind: span.kind,
            parentSpanId: span.parentSpanId || '',
            traceState: span.traceState || '',
            startTimeUnixNano: String(span.startTimeUnixNano),
            endTimeUnixNano: String(span.endTimeUnixNano),
            // JSON carries an int64 as a number or a string; protobuf's is read as a string.
            attributes: JSON.parse(
              JSON.stringify(span.attributes, (key, value) => (key === 'intValue' ? String(value) : value)),
            ),
            status: { code: span.status?.code ?? 0, message: span.status?.message || undefined },
            resource: resource.resource.attributes.map(({ key }) => key).sort(),
          })),
        ),
      );
    const expected = normalise(fromJson);
    expect(expected).toHaveLength(2);
    expect(normalise(fromProtobuf)).toEqual(expected);
    const decodedChild = normalise(fromProtobuf).find((span) => span.name === 'stage parse');
    expect(decodedChild?.parentSpanId).toBe(parent.spanContext().spanId);
    expect(decodedChild?.traceId).toBe(parent.spanContext().traceId);
  });
});
