import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../../server/testing/built-server';

/**
 * The faults API as `npm start` serves it (the HTTP layer's one app on Node's server, in front of
 * Next's pages), over real HTTP: every route and status, and a rule acting on a call made through
 * `POST /api/v1/tool-calls`.
 * Needs a current build (`node scripts/build.mjs`; `npm test` builds first); skipped without one.
 */
const built = await hasCurrentBuild('faults.built-server.test');

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers whose shape they assert on
type Json = any;

describe.skipIf(!built)('the built server: faults API', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-faults-built-');
  }, 90_000);

  afterAll(() => server?.stop());

  const send = (method: string, requestPath: string, body?: unknown) => server.send(method, requestPath, body);

  it('creates, lists, changes, disables, deletes and resets rules; 400 naming the field; 404 unknown', async () => {
    const created = await send('POST', '/api/v1/faults', {
      name: 'broken calculator',
      tool: 'calc*',
      kind: 'error',
      params: { code: 'CALC_DOWN', message: 'The calculator is down.' },
    });
    expect(created.status).toBe(201);
    const id = created.json.id;
    expect(created.json).toMatchObject({ tool: 'calc*', kind: 'error', active: true, hits: 0 });

    const bad = await send('POST', '/api/v1/faults', { name: 'x', tool: 'x', kind: 'latency', params: { ms: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'INVALID_FAULT_RULE', details: { errors: [{ path: 'params.ms' }] } });

    const call = await send('POST', '/api/v1/tool-calls', {
      tool_calls: [
        { id: 'call_f', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1+1"}' } },
      ],
    });
    expect(call.json.results[0]).toMatchObject({ status: 'failed', error: { code: 'CALC_DOWN' } });
    expect(call.json.results[0].error.message).toBe(
      'Injected fault (fault rule "broken calculator", error): The calculator is down.',
    );
    const traceId = call.json.results[0].trace_id;
    const trace = await send('GET', `/api/v1/traces/${traceId}`);
    expect(trace.json.flags.faulted).toBe(true);
    expect(trace.json.attempts[0].fault).toEqual({
      rule_id: id,
      rule_name: 'broken calculator',
      kind: 'error',
      code: 'CALC_DOWN',
      message: 'The calculator is down.',
    });
    const faulted = await send('GET', '/api/v1/traces?faulted=true');
    expect(faulted.json.items.map((item: Json) => item.id)).toEqual([traceId]);

    expect((await send('GET', `/api/v1/faults/${id}`)).json).toMatchObject({ id, hits: 1 });
    expect(await send('PATCH', `/api/v1/faults/${id}`, { hits: 0, probability: 0.5 })).toMatchObject({
      status: 200,
      json: { hits: 0, probability: 0.5 },
    });
    expect((await send('PATCH', '/api/v1/faults/flt_missing', { enabled: false })).status).toBe(404);
    expect(await send('POST', '/api/v1/faults/disable-all')).toEqual({ status: 200, json: { disabled: 1 } });
    expect(await send('GET', '/api/v1/faults')).toMatchObject({ status: 200, json: { active: 0 } });
    expect(await send('DELETE', `/api/v1/faults/${id}`)).toEqual({ status: 200, json: { deleted: true } });
    expect((await send('DELETE', `/api/v1/faults/${id}`)).status).toBe(404);
    await send('POST', '/api/v1/faults', { name: 'a', tool: 'x', kind: 'timeout' });
    expect(await send('POST', '/api/v1/faults/reset')).toEqual({ status: 200, json: { deleted: 1 } });
    expect((await send('GET', '/api/v1/faults')).json).toEqual({ faults: [], active: 0 });
  });
});
