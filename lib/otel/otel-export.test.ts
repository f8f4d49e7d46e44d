import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../executor/define-tool';
import { REDACTED } from '../executor/redact';
import { crowding } from '../hardening/testing/machine-pace';
import { createHttpApp } from '../http/app';
import { createHttpServer } from '../http/node-server';
import { callApp } from '../http/testing/call-app';
import type { Toolscope } from '../server/create-toolscope';
import { testToolscopes } from '../server/testing/test-toolscopes';
import { type OtelSettings, otelSettingsFromEnv } from './otel-settings';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './testing/otlp-receiver';
import { callSpanIds } from './trace-context';

/**
 * OpenTelemetry export end to end: real Toolscopes (SQLite, executor, built-in tools) export to a
 * local OTLP/HTTP receiver the test starts, which parses the JSON the SDK's exporter posts.
 */
const toolscopes = testToolscopes('toolscope-otel-');
const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const INCOMING_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${INCOMING_TRACE}-${INCOMING_SPAN}-01`;
const SECRET = 'sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c';

const flaky = defineTool({
  name: 'flaky',
  description: 'Answers on its second attempt (a fault fails the first).',
  inputSchema: z.object({ text: z.string() }),
  sideEffect: 'none',
  retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 5, factor: 1, jitter: 0 },
  execute: ({ text }) => ({ text }),
});

const echo = defineTool({
  name: 'echo',
  description: 'Says what it got, key included.',
  inputSchema: z.object({ text: z.string(), api_key: z.string() }),
  sideEffect: 'none',
  execute: ({ text, api_key }) => ({ said: text, echoed: `the key was ${api_key}` }),
});

async function receiver(options?: { holdMs?: number }): Promise<OtlpReceiver> {
  const started = await startOtlpReceiver(options);
  closers.push(() => started.close());
  return started;
}

/** Settings as the environment gives them, exported every 20 ms so the test does not wait. */
function settings(endpoint: string, env: Record<string, string> = {}): OtelSettings {
  const read = otelSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, ...env });
  if (!read) throw new Error('expected OpenTelemetry settings');
  return { ...read, batch: { ...read.batch, scheduledDelayMillis: 20 } };
}

function start(otel: OtelSettings | null, config?: object) {
  return toolscopes.start(toolscopes.dataDir(config), {
    otel,
    tools: [flaky, echo],
    faults: {
      faultFor: ({ tool, attempt }) =>
        tool === 'flaky' && attempt === 1 ? { ruleId: null, kind: 'fail_first', n: 1 } : null,
    },
  });
}

const callSpanOf = (spans: ReceivedSpan[], traceId: string) =>
  spans.find((span) => span.attributes['toolscope.trace_id'] === traceId);
const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId);
const nanos = (ms: number) => BigInt(Math.round(ms)) * 1_000_000n;

/** The agent path (the lean handler `npm start` serves the tool-calls route from) on a loopback port. */
async function agentPath(ts: Toolscope): Promise<string> {
  const server = createHttpServer(createHttpApp(ts, { heartbeatMs: 60_000 }), ts.config.limits);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let callCount = 0;
/** One call, with a tool call id of its own (a call id already answered in the session is not run again). */
const toolCallsBody = (name: string, args: object, sessionId = 'sess-otel') =>
  JSON.stringify({
    session_id: sessionId,
    tool_calls: [
      { id: `call_otel_${++callCount}`, type: 'function', function: { name, arguments: JSON.stringify(args) } },
    ],
  });

describe('OpenTelemetry export', () => {
  it('sends OTLP/HTTP JSON instead when OTEL_EXPORTER_OTLP_PROTOCOL=http/json, the same spans', async () => {
    const otlp = await receiver();
    const ts = start(settings(otlp.endpoint, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }));
    const result = await ts.executor.execute({ id: 'call_json', name: 'flaky', arguments: { text: 'hi' } });
    const spans = await otlp.waitFor((all) => callSpanOf(all, result.traceId) !== undefined);
    expect(otlp.requests.every((r) => r.contentType === 'application/json')).toBe(true);
    expect(callSpanOf(spans, result.traceId)).toMatchObject({
      name: 'execute_tool flaky',
      traceId: result.traceId.replace(/-/g, ''),
      attributes: expect.objectContaining({ 'gen_ai.tool.call.id': 'call_json' }),
    });
  });

  it('exports one execute_tool span per call with the GenAI attributes, and a child span per stage and per attempt', async () => {
    const otlp = await receiver();
    const ts = start(settings(otlp.endpoint, { OTEL_SERVICE_NAME: 'agent-tools' }));
    const result = await ts.executor.execute(
      { id: 'call_abc', name: 'flaky', arguments: { text: 'hi' } },
      { sessionId: 'session-42' },
    );
    expect(result).toMatchObject({ success: true, output: { text: 'hi' } });
    const record = ts.store.get(result.traceId);
    if (!record) throw new Error('the call was not stored');

    const spans = await otlp.waitFor((all) => callSpanOf(all, result.traceId) !== undefined && all.length >= 8);
    // OTLP/HTTP with protobuf, the spec's default protocol.
    expect(otlp.requests.every((r) => r.path === '/v1/traces' && r.contentType === 'application/x-protobuf')).toBe(
      true,
    );
    const call = callSpanOf(spans, result.traceId);
    if (!call) throw new Error('no call span');
    expect(call).toMatchObject({
      name: 'execute_tool flaky',
      kind: 1, // INTERNAL
      parentSpanId: '',
      // A call without a traceparent starts a trace whose id is its Toolscope trace id.
      traceId: result.traceId.replace(/-/g, ''),
      spanId: callSpanIds(result.traceId, null).spanId,
      status: { code: 0 },
      startTimeUnixNano: nanos(record.createdAt).toString(),
    });
    expect(BigInt(call.endTimeUnixNano) - nanos(record.finishedAt ?? 0)).toBeLessThan(1_000_000n);
    expect(call.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'flaky',
      'gen_ai.tool.call.id': 'call_abc',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Answers on its second attempt (a fault fails the first).',
      'gen_ai.conversation.id': 'session-42',
      'toolscope.trace_id': result.traceId,
      'toolscope.status': 'succeeded',
      'toolscope.attempts': 2,
      'toolscope.actor': 'api',
      'toolscope.side_effect': 'none',
    });
    expect(call.resource['service.name']).toBe('agent-tools');
    expect(call.resource['telemetry.sdk.language']).toBe('nodejs');

    const stages = childrenOf(spans, call);
    const ran = record.stages.filter((stage) => stage.status !== 'skipped').map((stage) => `stage ${stage.name}`);
    expect(stages.map((span) => span.name).sort()).toEqual([...ran].sort());
    expect(ran).toEqual(expect.arrayContaining(['stage parse', 'stage validate', 'stage execute']));
    const execute = stages.find((span) => span.name === 'stage execute');
    if (!execute) throw new Error('no execute stage span');
    expect(execute.attributes).toMatchObject({ 'toolscope.stage': 'execute', 'toolscope.stage.status': 'ok' });

    // Attempts under the execute stage: the first failed by the injected fault, then a backoff.
    const attempts = childrenOf(spans, execute).sort((a, b) => a.name.localeCompare(b.name));
    expect(attempts.map((span) => span.name)).toEqual(['attempt 1', 'attempt 2']);
    const [first, second] = attempts as [ReceivedSpan, ReceivedSpan];
    expect(first.attributes).toMatchObject({
      'toolscope.attempt.number': 1,
      'toolscope.attempt.tool': 'flaky',
      'toolscope.attempt.outcome': 'error',
      'toolscope.attempt.backoff_ms': record.attempts[0]?.backoffMs,
      'toolscope.fault.kind': 'fail_first',
      'toolscope.fault.params': '{"n":1}',
      'error.type': record.attempts[0]?.error?.code,
    });
    expect(first.status.code).toBe(2);
    expect(second.attributes).toMatchObject({ 'toolscope.attempt.number': 2, 'toolscope.attempt.outcome': 'ok' });
    expect(second.attributes['toolscope.fault.kind']).toBeUndefined();
    expect(second.status.code).toBe(0);
    // Arguments and results stay out unless opted in.
    expect(spans.some((span) => 'gen_ai.tool.call.arguments' in span.attributes)).toBe(false);
    expect(spans.some((span) => 'gen_ai.tool.call.result' in span.attributes)).toBe(false);
  });

  it('a failed call: error.type is its error code and the span’s status ERROR', async () => {
    const otlp = await receiver();
    const ts = start(settings(otlp.endpoint));
    const result = await ts.executor.execute({ name: 'calculator', arguments: '{"expression": 7}' });
    expect(result.success).toBe(false);
    const spans = await otlp.waitFor((all) => callSpanOf(all, result.traceId) !== undefined);
    const call = callSpanOf(spans, result.traceId);
    expect(call?.attributes).toMatchObject({
      'gen_ai.tool.name': 'calculator',
      'error.type': result.error?.code,
      'toolscope.status': 'failed',
      'toolscope.attempts': 0,
    });
    expect(call?.attributes['gen_ai.conversation.id']).toBeUndefined();
    expect(call?.status).toEqual({ code: 2, message: result.error?.message });
    const failedStage = childrenOf(spans, call as ReceivedSpan).find((span) => span.name === 'stage validate');
    expect(failedStage?.status.code).toBe(2);
  });

  it('with content capture opted in, carries the arguments and the result, redacted', async () => {
    const otlp = await receiver();
    const ts = start(settings(otlp.endpoint, { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }));
    const result = await ts.executor.execute({ name: 'echo', arguments: { text: 'hello', api_key: SECRET } });
    expect(result.success).toBe(true);
    const spans = await otlp.waitFor((all) => callSpanOf(all, result.traceId) !== undefined);
    const call = callSpanOf(spans, result.traceId);
    const args = JSON.parse(String(call?.attributes['gen_ai.tool.call.arguments']));
    expect(args).toEqual({ text: 'hello', api_key: REDACTED });
    const output = String(call?.attributes['gen_ai.tool.call.result']);
    expect(JSON.parse(output).said).toBe('hello');
    for (const span of spans) expect(JSON.stringify(span)).not.toContain(SECRET);
  });

  it('on the agent path, an incoming traceparent (and tracestate) becomes the call span’s parent', async () => {
    const otlp = await receiver();
    const ts = start(settings(otlp.endpoint));
    const base = await agentPath(ts);
    const response = await fetch(`${base}/api/v1/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: TRACEPARENT, tracestate: 'vendor=abc,other=1' },
      body: toolCallsBody('calculator', { expression: '1+2' }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { results: Array<{ trace_id: string; success: boolean }> };
    const traceId = answer.results[0]?.trace_id ?? '';
    expect(answer.results[0]?.success).toBe(true);
    const spans = await otlp.waitFor((all) => callSpanOf(all, traceId) !== undefined);
    const call = callSpanOf(spans, traceId);
    expect(call).toMatchObject({
      traceId: INCOMING_TRACE,
      parentSpanId: INCOMING_SPAN,
      traceState: 'vendor=abc,other=1',
      spanId: callSpanIds(traceId, null).spanId,
    });
    expect(call?.attributes).toMatchObject({
      'gen_ai.tool.call.id': expect.stringMatching(/^call_otel_\d+$/),
      'gen_ai.conversation.id': 'sess-otel',
    });
  });

  it('on Next’s route handler too; a malformed traceparent is ignored (the call starts its own trace)', async () => {
    const otlp = await receiver();
    const ts = start(settings(otlp.endpoint));
    const app = createHttpApp(ts);
    const post = (traceparent: string) =>
      callApp(app, 'POST', '/api/v1/tool-calls', {
        headers: { traceparent },
        body: toolCallsBody('calculator', { expression: '2*3' }),
      }).then(async (response) => ((await response.json()) as { results: Array<{ trace_id: string }> }).results[0]);
    const honoured = await post(TRACEPARENT);
    const ignored = await post(`00-${'0'.repeat(32)}-${INCOMING_SPAN}-01`);
    const spans = await otlp.waitFor(
      (all) =>
        callSpanOf(all, honoured?.trace_id ?? '') !== undefined &&
        callSpanOf(all, ignored?.trace_id ?? '') !== undefined,
    );
    expect(callSpanOf(spans, honoured?.trace_id ?? '')).toMatchObject({
      traceId: INCOMING_TRACE,
      parentSpanId: INCOMING_SPAN,
    });
    expect(callSpanOf(spans, ignored?.trace_id ?? '')).toMatchObject({
      traceId: (ignored?.trace_id ?? '').replace(/-/g, ''),
      parentSpanId: '',
    });
  });

  it('an unsampled incoming trace is not exported', async () => {
    const otlp = await receiver();
    const ts = start(settings(otlp.endpoint));
    const base = await agentPath(ts);
    const send = (traceparent: string) =>
      fetch(`${base}/api/v1/tool-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent },
        body: toolCallsBody('calculator', { expression: '1+1' }),
      }).then(async (r) => ((await r.json()) as { results: Array<{ trace_id: string }> }).results[0]?.trace_id ?? '');
    const unsampled = await send(`00-${INCOMING_TRACE}-${INCOMING_SPAN}-00`);
    const sampled = await send(TRACEPARENT);
    // The calls ran one after the other, and the exporter sends its batches in the order the calls
    // finished, one at a time: had the unsampled call been exported, it would be here by now.
    const spans = await otlp.waitFor((all) => callSpanOf(all, sampled) !== undefined);
    expect(callSpanOf(spans, unsampled)).toBeUndefined();
  });
});

describe('http_request passes the trace context on', () => {
  /** A local HTTP server the http_request tool may reach, keeping the trace headers it got. */
  async function target() {
    const seen: Array<{ traceparent?: string; tracestate?: string }> = [];
    const server = http.createServer((req, res) => {
      seen.push({
        traceparent: req.headers.traceparent as string | undefined,
        tracestate: req.headers.tracestate as string | undefined,
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    return { seen, host: `127.0.0.1:${port}`, url: `http://127.0.0.1:${port}/hello` };
  }

  async function call(base: string, url: string, traceparent?: string) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (traceparent) Object.assign(headers, { traceparent, tracestate: 'vendor=abc' });
    const response = await fetch(`${base}/api/v1/tool-calls`, {
      method: 'POST',
      headers,
      body: toolCallsBody('http_request', { url }),
    });
    const answer = (await response.json()) as { results: Array<{ trace_id: string; success: boolean }> };
    expect(answer.results[0]?.success).toBe(true);
    return answer.results[0]?.trace_id ?? '';
  }

  it('with OpenTelemetry on: a traceparent whose parent is the call’s span, in the incoming trace or the call’s own', async () => {
    const otlp = await receiver();
    const web = await target();
    const ts = start(settings(otlp.endpoint), { http: { allow: [web.host] } });
    const base = await agentPath(ts);
    const traced = await call(base, web.url, TRACEPARENT);
    const untraced = await call(base, web.url);
    const spans = await otlp.waitFor(
      (all) => callSpanOf(all, traced) !== undefined && callSpanOf(all, untraced) !== undefined,
    );
    const tracedSpan = callSpanOf(spans, traced) as ReceivedSpan;
    const untracedSpan = callSpanOf(spans, untraced) as ReceivedSpan;
    expect(web.seen).toEqual([
      { traceparent: `00-${INCOMING_TRACE}-${tracedSpan.spanId}-01`, tracestate: 'vendor=abc' },
      { traceparent: `00-${untracedSpan.traceId}-${untracedSpan.spanId}-01`, tracestate: undefined },
    ]);
    expect(untracedSpan.traceId).toBe(untraced.replace(/-/g, ''));
  });

  it('with OpenTelemetry off: the incoming traceparent unchanged, and none when none came', async () => {
    const web = await target();
    const ts = start(null, { http: { allow: [web.host] } });
    const base = await agentPath(ts);
    await call(base, web.url, TRACEPARENT);
    await call(base, web.url);
    expect(web.seen).toEqual([{ traceparent: TRACEPARENT, tracestate: 'vendor=abc' }, {}]);
  });
});

describe('with the exporter down, calls are unaffected', () => {
  /** A loopback port nothing listens on: connections are refused. */
  async function refusedEndpoint(): Promise<string> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return `http://127.0.0.1:${port}`;
  }

  /** Runs the same calls on a Toolscope; their results (without ids and times) and the slowest latency. */
  async function run(ts: Toolscope) {
    const results = [];
    const started = performance.now();
    for (let i = 0; i < 30; i++) {
      const result = await ts.executor.execute({ name: 'calculator', arguments: { expression: `${i} * 2` } });
      results.push({ success: result.success, output: result.output, status: result.status });
    }
    return { results, elapsedMs: performance.now() - started };
  }

  it('connection refused: same results, no added latency, one report of the failure, and a bounded stop', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    closers.push(() => errors.mockRestore());
    // The exporter gives up on a batch (after its retries) within a second instead of ten.
    vi.stubEnv('OTEL_EXPORTER_OTLP_TIMEOUT', '1000');
    closers.push(() => void vi.unstubAllEnvs());
    const down = start(settings(await refusedEndpoint()));
    const off = start(null);
    const baseline = await run(off);
    const withDown = await run(down);
    expect(withDown.results).toEqual(baseline.results);
    expect(withDown.results.every((r) => r.success)).toBe(true);
    // An export on the path would cost a connection attempt (and its retries) per call; the slack
    // stretches by the machine's crowding.
    expect(withDown.elapsedMs).toBeLessThan(baseline.elapsedMs + 1_000 * crowding());
    // The exporter tried (and failed) meanwhile; it is said, once.
    await expect
      .poll(() => errors.mock.calls.filter((args) => String(args[0]).includes('OpenTelemetry export')).length, {
        timeout: 10_000,
      })
      .toBe(1);
    const said = errors.mock.calls.map((args) => String(args[0])).find((line) => line.includes('OpenTelemetry export'));
    expect(said).toMatch(
      /^\[toolscope\] OpenTelemetry export: connect ECONNREFUSED 127\.0\.0\.1:\d+; calls are not affected$/,
    );
    const stopping = performance.now();
    await down.stop({ by: 'test' });
    expect(performance.now() - stopping).toBeLessThan(2_500 * crowding());
  });

  it('a collector that answers late: calls answered at once, the spans still delivered', async () => {
    const slow = await receiver({ holdMs: 3_000 });
    const ts = start(settings(slow.endpoint));
    const off = start(null);
    const baseline = await run(off);
    const withSlow = await run(ts);
    expect(withSlow.results).toEqual(baseline.results);
    expect(withSlow.elapsedMs).toBeLessThan(baseline.elapsedMs + 1_000 * crowding());
    const spans = await slow.waitFor((all) => all.filter((s) => s.name === 'execute_tool calculator').length === 30);
    expect(spans.length).toBeGreaterThanOrEqual(30);
  });
});
