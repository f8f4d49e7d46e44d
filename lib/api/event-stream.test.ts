import { describe, expect, it } from 'vitest';
import { createTraceEvents } from '../events';
import type { TraceRecord } from '../executor/types';
import { eventStreamResponse } from './event-stream';

function record(id: string, tool = 'calculator'): TraceRecord {
  return { id, tool, status: 'running', sessionId: null } as TraceRecord;
}

/** Reads SSE frames from a response body until `count` frames of `type` arrived (or the stream ends). */
async function readFrames(response: Response, until: (frames: string[]) => boolean): Promise<string[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const frames: string[] = [];
  while (!until(frames)) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      frames.push(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
    }
  }
  await reader.cancel().catch(() => {});
  return frames;
}

const eventsOf = (frames: string[], name: string) => frames.filter((f) => f.includes(`event: ${name}\n`));

describe('eventStreamResponse', () => {
  it('pings at once and on every heartbeat, so a client can see the stream is alive', async () => {
    const events = createTraceEvents();
    const abort = new AbortController();
    const response = eventStreamResponse(abort.signal, events, { heartbeatMs: 20 });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const frames = await readFrames(response, (f) => eventsOf(f, 'ping').length >= 3);
    expect(eventsOf(frames, 'ping')).toHaveLength(3);
    abort.abort();
  });

  it('sends progress only to the stream following that trace', async () => {
    const events = createTraceEvents();
    const all = eventStreamResponse(new AbortController().signal, events, { heartbeatMs: 60_000 });
    const one = eventStreamResponse(new AbortController().signal, events, { trace: 't1', heartbeatMs: 60_000 });
    // One batch each: within one batch a finish would make the progress before it redundant.
    for (const [id, type] of [
      ['t1', 'begin'],
      ['t1', 'progress'],
      ['t2', 'begin'],
      ['t2', 'progress'],
      ['t1', 'finish'],
    ] as const) {
      events.publish(record(id), type);
      events.flush();
    }
    events.closeAll();
    const allFrames = eventsOf(await readFrames(all, () => false), 'trace').map((f) =>
      JSON.parse(f.split('data: ')[1]!),
    );
    const oneFrames = eventsOf(await readFrames(one, () => false), 'trace').map((f) =>
      JSON.parse(f.split('data: ')[1]!),
    );
    expect(allFrames.map((e) => `${e.trace_id}:${e.type}`)).toEqual(['t1:begin', 't2:begin', 't1:finish']);
    expect(oneFrames.map((e) => `${e.trace_id}:${e.type}`)).toEqual(['t1:begin', 't1:progress', 't1:finish']);
  });

  it('gives every event an id line; resumes after Last-Event-ID with what was missed, or a reset frame', async () => {
    const events = createTraceEvents();
    const first = eventStreamResponse(new AbortController().signal, events, { heartbeatMs: 60_000, session: 's1' });
    events.publish({ ...record('a'), sessionId: 's1' }, 'begin');
    events.flush();
    const seen = (await readFrames(first, (f) => eventsOf(f, 'trace').length === 1)).find((f) => f.includes('trace'))!;
    const lastId = /^id: (\d+)$/m.exec(seen)![1]!;
    events.publish({ ...record('b'), sessionId: 's2' }, 'begin');
    events.publish({ ...record('a'), sessionId: 's1', status: 'succeeded' }, 'finish');
    events.flush();
    const resumed = eventStreamResponse(new AbortController().signal, events, {
      heartbeatMs: 60_000,
      session: 's1',
      lastEventId: lastId,
    });
    const reset = eventStreamResponse(new AbortController().signal, events, { heartbeatMs: 60_000, lastEventId: '2' });
    events.closeAll();
    const replayed = eventsOf(await readFrames(resumed, () => false), 'trace');
    expect(replayed).toHaveLength(1);
    expect(replayed[0]).toMatch(/^id: \d+\nevent: trace\ndata: \{"type":"finish","trace_id":"a"/);
    expect(Number(/^id: (\d+)/.exec(replayed[0]!)![1])).toBeGreaterThan(Number(lastId));
    const resetFrames = await readFrames(reset, () => false);
    expect(eventsOf(resetFrames, 'reset')).toEqual([
      expect.stringMatching(/^id: \d+\nevent: reset\ndata: \{"reason":/),
    ]);
    expect(eventsOf(resetFrames, 'trace')).toEqual([]);
  });

  it('ends every stream on closeAll, and ends new ones at once after it', async () => {
    const events = createTraceEvents();
    const response = eventStreamResponse(new AbortController().signal, events, { heartbeatMs: 60_000 });
    expect(events.listenerCount()).toBe(1);
    events.closeAll();
    expect(events.listenerCount()).toBe(0);
    const frames = await readFrames(response, () => false);
    expect(eventsOf(frames, 'ping')).toHaveLength(1);
    const late = eventStreamResponse(new AbortController().signal, events, { heartbeatMs: 60_000 });
    expect(events.listenerCount()).toBe(0);
    await readFrames(late, () => false);
  });

  it('unsubscribes when the client goes away', async () => {
    const events = createTraceEvents();
    const abort = new AbortController();
    eventStreamResponse(abort.signal, events, { heartbeatMs: 60_000 });
    expect(events.listenerCount()).toBe(1);
    abort.abort();
    expect(events.listenerCount()).toBe(0);
  });
});
