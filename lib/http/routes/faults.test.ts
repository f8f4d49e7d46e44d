import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../executor/define-tool';
import type { Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { appOf, callApp, type Json } from '../testing/call-app';

/** The faults API through the HTTP layer against a real Toolscope on a real data folder, and faults seen in traces. */
const toolscopes = testToolscopes('toolscope-faults-api-');

const echo = defineTool({
  name: 'http_echo',
  description: 'Says it back',
  sideEffect: 'none',
  inputSchema: z.object({ text: z.string() }),
  retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 50, jitter: 0 },
  execute: ({ text }) => ({ text }),
});

const dataDir = () => toolscopes.dataDir();
const start = (dir: string) => toolscopes.start(dir, { tools: [echo] });

/** One request through the app in process; a string body goes with the given content type. */
const send = (ts: Toolscope, method: string, path: string, body?: unknown, contentType = 'application/json') =>
  callApp(appOf(ts), method, path, { body, headers: body === undefined ? {} : { 'content-type': contentType } });

async function answer(response: Promise<Response> | Response) {
  const r = await response;
  return { status: r.status, json: (await r.json()) as Json };
}

const base = '/api/v1/faults';
const create = (ts: Toolscope, body: unknown) => answer(send(ts, 'POST', base, body));
const patch = (ts: Toolscope, id: string, body: unknown) => answer(send(ts, 'PATCH', `${base}/${id}`, body));
const listFaults = (ts: Toolscope) => answer(send(ts, 'GET', base));
const getFault = (ts: Toolscope, id: string) => answer(send(ts, 'GET', `${base}/${id}`));
const deleteFault = (ts: Toolscope, id: string) => answer(send(ts, 'DELETE', `${base}/${id}`));
const getTrace = (ts: Toolscope, id: string) => answer(send(ts, 'GET', `/api/v1/traces/${id}`));
const listTraces = (ts: Toolscope, query: string) => answer(send(ts, 'GET', `/api/v1/traces${query}`));

async function call(ts: Toolscope, text: string, extra: object = {}): Promise<Json> {
  const result = await answer(
    send(ts, 'POST', '/api/v1/tool-calls', {
      ...extra,
      tool_calls: [
        { id: `c_${text}`, type: 'function', function: { name: 'http_echo', arguments: JSON.stringify({ text }) } },
      ],
    }),
  );
  expect(result.status).toBe(200);
  return result.json.results[0];
}

describe('faults API', () => {
  it('creates (201), lists newest first with the active count, reads, updates, deletes (404 unknown)', async () => {
    const ts = start(dataDir());
    const created = await create(ts, {
      name: 'flaky search',
      tool: 'http_*',
      kind: 'fail_first',
      params: { n: 2 },
      seed: 12345,
      expires_at: '2099-01-01T00:00:00.000Z',
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.stringMatching(/^flt_/),
      name: 'flaky search',
      enabled: true,
      tool: 'http_*',
      session_id: null,
      kind: 'fail_first',
      params: { n: 2 },
      probability: 1,
      seed: 12345,
      max_hits: null,
      hits: 0,
      expires_at: '2099-01-01T00:00:00.000Z',
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      active: true,
    });
    const id = created.json.id;
    const second = await create(ts, {
      name: 'slow',
      tool: 'http_echo',
      kind: 'latency',
      params: { ms: 5, jitter_ms: 2 },
      enabled: false,
    });
    expect(second.status).toBe(201);

    const list = await listFaults(ts);
    expect(list.status).toBe(200);
    expect(list.json.active).toBe(1);
    expect(list.json.faults.map((f: Json) => [f.name, f.active])).toEqual([
      ['slow', false],
      ['flaky search', true],
    ]);

    expect(await getFault(ts, id)).toMatchObject({ status: 200, json: { id, name: 'flaky search' } });
    expect(await getFault(ts, 'flt_nope')).toMatchObject({
      status: 404,
      json: { error: { code: 'NOT_FOUND' } },
    });

    const changed = await patch(ts, id, { enabled: false, max_hits: 4, expires_at: null });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ enabled: false, max_hits: 4, expires_at: null, active: false });
    expect(await patch(ts, 'flt_nope', { enabled: false })).toMatchObject({
      status: 404,
      json: { error: { code: 'NOT_FOUND' } },
    });
    // A body not sent as JSON is refused by the body limit before the handler looks the rule up.
    expect(await answer(send(ts, 'PATCH', `${base}/flt_nope`, 'enabled=false', 'text/plain'))).toMatchObject({
      status: 415,
      json: { error: { code: 'UNSUPPORTED_MEDIA_TYPE' } },
    });

    expect(await deleteFault(ts, id)).toEqual({ status: 200, json: { deleted: true } });
    expect(await deleteFault(ts, id)).toMatchObject({ status: 404, json: { error: { code: 'NOT_FOUND' } } });
  });

  it('answers 400 INVALID_FAULT_RULE naming the field, 400 for bad JSON, 415 for a body not sent as JSON', async () => {
    const ts = start(dataDir());
    const bad = await create(ts, { name: 'x', tool: 'http_*', kind: 'fail_first', params: { n: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({
      code: 'INVALID_FAULT_RULE',
      message: expect.stringMatching(/^params\.n: /),
      details: { errors: [{ path: 'params.n', message: expect.any(String) }] },
    });
    const two = await create(ts, { name: '', tool: 'x', kind: 'timeout', probability: 2 });
    expect(two.json.error.message).toMatch(/^name: must not be empty \(and 1 more\)$/);
    expect(two.json.error.details.errors.map((e: Json) => e.path)).toEqual(['name', 'probability']);
    expect((await create(ts, { name: 'x', tool: 'x', kind: 'rate_limit', params: {} })).json.error.message).toMatch(
      /^params\.retry_after_ms: /,
    );
    expect((await create(ts, '{"name":')).json.error.code).toBe('INVALID_JSON');
    const form = await answer(send(ts, 'POST', base, '{}', 'text/plain'));
    expect(form.status).toBe(415);
    expect(form.json.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const { json } = await create(ts, { name: 'ok', tool: 'x', kind: 'timeout' });
    const badPatch = await patch(ts, json.id, { kind: 'exit_code' });
    expect(badPatch).toMatchObject({
      status: 400,
      json: { error: { code: 'INVALID_FAULT_RULE', message: expect.stringMatching(/^params\.code: /) } },
    });
    expect(ts.faults.list()).toHaveLength(1);
  });

  it('disable-all and reset', async () => {
    const ts = start(dataDir());
    await create(ts, { name: 'a', tool: 'x', kind: 'timeout' });
    await create(ts, { name: 'b', tool: 'x', kind: 'timeout' });
    await create(ts, { name: 'c', tool: 'x', kind: 'timeout', enabled: false });
    expect(await answer(send(ts, 'POST', `${base}/disable-all`))).toEqual({ status: 200, json: { disabled: 2 } });
    expect((await listFaults(ts)).json.active).toBe(0);
    expect(await answer(send(ts, 'POST', `${base}/reset`))).toEqual({ status: 200, json: { deleted: 3 } });
    expect((await listFaults(ts)).json).toEqual({ faults: [], active: 0 });
  });

  it('a fail_first rule N=2: three attempts in the trace JSON, faults with their rule, flags.faulted, the faulted filter, hits counted', async () => {
    const ts = start(dataDir());
    const rule = (await create(ts, { name: 'flaky search', tool: 'http_*', kind: 'fail_first', params: { n: 2 } }))
      .json;
    const faulted = await call(ts, 'one');
    expect(faulted).toMatchObject({ success: true, attempts: 3, metadata: { faulted: true } });
    ts.faults.update(rule.id, { enabled: false });
    const clean = await call(ts, 'two');
    expect(clean).toMatchObject({ success: true, attempts: 1, metadata: { faulted: false } });

    const trace = (await getTrace(ts, faulted.trace_id)).json;
    expect(trace.flags.faulted).toBe(true);
    expect(trace.attempts.map((a: Json) => [a.number, a.outcome, a.fault])).toEqual([
      [1, 'error', { rule_id: rule.id, rule_name: 'flaky search', kind: 'fail_first', n: 2 }],
      [2, 'error', { rule_id: rule.id, rule_name: 'flaky search', kind: 'fail_first', n: 2 }],
      [3, 'ok', null],
    ]);
    expect(trace.attempts[0].backoff_ms).toBe(5);
    expect(trace.attempts[0].error.message).toMatch(/^Injected fault \(fault rule "flaky search", fail_first\)/);

    const listed = (await listTraces(ts, '?faulted=true')).json;
    expect(listed.items.map((s: Json) => s.id)).toEqual([faulted.trace_id]);
    const others = (await listTraces(ts, '?faulted=false')).json;
    expect(others.items.map((s: Json) => s.id)).toEqual([clean.trace_id]);
    expect((await listTraces(ts, '?faulted=maybe')).status).toBe(400);

    const exported = await (await send(ts, 'GET', '/api/v1/traces/export?faulted=true')).text();
    const lines = exported
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((t) => t.id)).toEqual([faulted.trace_id]);
    expect(lines[0].attempts[0].fault).toMatchObject({ rule_id: rule.id, kind: 'fail_first', n: 2 });

    expect(ts.faults.get(rule.id)?.hits).toBe(2);
  });

  it('a latency rule: the attempt carries the real delay, params snake_case', async () => {
    const ts = start(dataDir());
    const rule = (
      await create(ts, { name: 'slow', tool: 'http_echo', kind: 'latency', params: { ms: 30, jitter_ms: 10 } })
    ).json;
    const result = await call(ts, 'x');
    const trace = (await getTrace(ts, result.trace_id)).json;
    const fault = trace.attempts[0].fault;
    expect(fault).toMatchObject({ rule_id: rule.id, rule_name: 'slow', kind: 'latency', jitter_ms: 10 });
    expect(fault.ms).toBeGreaterThanOrEqual(30);
    expect(fault.ms).toBeLessThanOrEqual(40);
    expect(trace.attempts[0].duration_ms).toBeGreaterThanOrEqual(fault.ms - 1);
  });

  it('rules, their hits and their draws survive a restart (close and reopen the same data folder)', async () => {
    const dir = dataDir();
    let ts = start(dir);
    const coin = (
      await create(ts, {
        name: 'coin',
        tool: 'http_echo',
        kind: 'error',
        params: { code: 'X' },
        probability: 0.5,
        seed: 7,
      })
    ).json;
    const sure = (await create(ts, { name: 'sure', tool: 'nothing_here', kind: 'timeout', max_hits: 3 })).json;
    for (let i = 0; i < 6; i++) await call(ts, `before-${i}`);
    const before = ts.faults.get(coin.id);
    expect(before?.draws).toBe(6);
    ts = await toolscopes.restart(ts, dir, { tools: [echo] });
    const listed = (await listFaults(ts)).json;
    expect(listed.faults.map((f: Json) => f.id)).toEqual([sure.id, coin.id]);
    expect(listed.faults[1]).toMatchObject({ hits: before?.hits, seed: 7 });
    expect(ts.faults.get(coin.id)?.draws).toBe(6);
    await call(ts, 'after');
    expect(ts.faults.get(coin.id)?.draws).toBe(7);
  });
});
