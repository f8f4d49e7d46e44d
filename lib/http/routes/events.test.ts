import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import type { TraceRecord } from '../../executor/types';
import { createToolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { appOf, callApp, type Json } from '../testing/call-app';

/** `GET /api/v1/events` through the whole chain of a real Toolscope (in process). */
const toolscopes = testToolscopes('toolscope-events-route-');

function record(id: string): TraceRecord {
  return { id, tool: 'calculator', status: 'running', sessionId: null } as TraceRecord;
}

/** Reads a stream's `event: trace` frames as `trace-id:type` until `enough` says so. */
async function traceEvents(response: Response, enough: (seen: string[]) => boolean): Promise<string[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const seen: string[] = [];
  while (!enough(seen)) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!frame.includes('event: trace\n')) continue;
      const data = JSON.parse(frame.split('data: ')[1]!) as { trace_id: string; type: string };
      seen.push(`${data.trace_id}:${data.type}`);
    }
  }
  await reader.cancel().catch(() => {});
  return seen;
}

describe('GET /api/v1/events?progress=all', () => {
  it("gets every call's progress events; a stream without the flag gets none", async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    const app = appOf(ts);
    const shared = await callApp(app, 'GET', '/api/v1/events?progress=all');
    const plain = await callApp(app, 'GET', '/api/v1/events');
    expect(shared.status).toBe(200);
    expect(shared.headers.get('content-type')).toMatch(/text\/event-stream/);
    // One batch each (a later event of a call makes its progress redundant within a batch).
    for (const [id, type] of [
      ['t1', 'begin'],
      ['t2', 'begin'],
      ['t1', 'progress'],
      ['t2', 'progress'],
      ['t2', 'progress'],
      ['t1', 'finish'],
      ['t2', 'finish'],
    ] as const) {
      ts.events.publish(record(id), type);
      ts.events.flush();
    }
    const done = (seen: string[]) => seen.includes('t2:finish');
    expect(await traceEvents(shared, done)).toEqual([
      't1:begin',
      't2:begin',
      't1:progress',
      't2:progress',
      't2:progress',
      't1:finish',
      't2:finish',
    ]);
    expect(await traceEvents(plain, done)).toEqual(['t1:begin', 't2:begin', 't1:finish', 't2:finish']);
  });

  it('refuses another value of progress with INVALID_QUERY', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    const response = await callApp(appOf(ts), 'GET', '/api/v1/events?progress=some');
    expect(response.status).toBe(400);
    expect((await response.json()) as Json).toEqual({
      error: { code: 'INVALID_QUERY', message: expect.stringContaining('progress') },
    });
    expect(ts.events.listenerCount()).toBe(0);
  });
});

describe('HEAD /api/v1/events (what the pages probe on a dropped stream)', () => {
  it('answers at once, without a body or a subscription; 401 once a key is required and none is sent', async () => {
    const local = toolscopes.start(toolscopes.dataDir());
    const open = await callApp(appOf(local), 'HEAD', '/api/v1/events?progress=all');
    expect(open.status).toBe(200);
    expect(await open.text()).toBe('');
    expect(local.events.listenerCount()).toBe(0);

    const dir = toolscopes.dataDir();
    const token = 'events-route-token-0123456789';
    const guarded = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir, TOOLSCOPE_TOKEN: token }, dir));
    try {
      expect((await callApp(appOf(guarded), 'HEAD', '/api/v1/events')).status).toBe(401);
      expect((await callApp(appOf(guarded), 'HEAD', '/api/v1/events', { token })).status).toBe(200);
    } finally {
      await guarded.stop({ by: 'test' });
      guarded.close();
    }
  });
});
