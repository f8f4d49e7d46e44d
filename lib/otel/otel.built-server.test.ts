import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../server/testing/built-server';
import { type OtlpReceiver, startOtlpReceiver } from './testing/otlp-receiver';

/**
 * The built server (`npm start`) with `OTEL_EXPORTER_OTLP_ENDPOINT` set: the SDK loads in the
 * production bundle and a call made on the agent path with a `traceparent` reaches a local OTLP
 * receiver as a child of it. Needs a current build; skipped without one (see `hasCurrentBuild`).
 */
const built = await hasCurrentBuild('otel.built-server.test');

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';

describe.skipIf(!built)('the built server exports OpenTelemetry spans when OTEL_EXPORTER_OTLP_ENDPOINT is set', () => {
  let receiver: OtlpReceiver;
  let server: BuiltServer;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    server = await startBuiltServer('toolscope-otel-built-', undefined, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'toolscope-built',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
  }, 90_000);

  afterAll(async () => {
    server?.stop();
    await receiver?.close();
  });

  it('a call on the agent path with a traceparent arrives as its child, with the GenAI attributes', async () => {
    const answer = await fetch(`${server.base}/api/v1/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${TRACE}-${PARENT}-01` },
      body: JSON.stringify({
        session_id: 'built-otel',
        tool_calls: [
          { id: 'call_built', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } },
        ],
      }),
    });
    expect(answer.status).toBe(200);
    const { results } = (await answer.json()) as { results: { trace_id: string; success: boolean }[] };
    expect(results[0]?.success).toBe(true);
    const traceId = results[0]?.trace_id;
    const spans = await receiver.waitFor((all) => all.some((s) => s.attributes['toolscope.trace_id'] === traceId));
    const call = spans.find((s) => s.attributes['toolscope.trace_id'] === traceId);
    expect(call).toMatchObject({ name: 'execute_tool calculator', traceId: TRACE, parentSpanId: PARENT });
    expect(call?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'calculator',
      'gen_ai.tool.call.id': 'call_built',
      'gen_ai.conversation.id': 'built-otel',
    });
    expect(call?.resource['service.name']).toBe('toolscope-built');
    expect(spans.some((s) => s.parentSpanId === call?.spanId && s.name === 'stage execute')).toBe(true);
    expect(server.log()).toContain(
      `[toolscope] OpenTelemetry ${receiver.endpoint}/v1/traces: exporting calls as spans`,
    );
  });
});
