import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createTraceEvents } from '../events';
import type { TraceRecord } from '../executor/types';
import { eventStreamResponse, MAX_PENDING_BYTES } from './event-stream';

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
    const response = eventStreamResponse(events, { gzip: false, heartbeatMs: 20 });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(response.headers.get('content-encoding')).toBeNull();
    const frames = await readFrames(response, (f) => eventsOf(f, 'ping').length >= 3);
    expect(eventsOf(frames, 'ping')).toHaveLength(3);
    // readFrames cancelled the body: the client went away.
    expect(events.listenerCount()).toBe(0);
  });

  it('sends progress only to the stream following that trace', async () => {
    const events = createTraceEvents();
    const all = eventStreamResponse(events, { gzip: false, heartbeatMs: 60_000 });
    const one = eventStreamResponse(events, { gzip: false, trace: 't1', heartbeatMs: 60_000 });
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
    const first = eventStreamResponse(events, { gzip: false, heartbeatMs: 60_000, session: 's1' });
    events.publish({ ...record('a'), sessionId: 's1' }, 'begin');
    events.flush();
    const seen = (await readFrames(first, (f) => eventsOf(f, 'trace').length === 1)).find((f) => f.includes('trace'))!;
    const lastId = /^id: (\d+)$/m.exec(seen)![1]!;
    events.publish({ ...record('b'), sessionId: 's2' }, 'begin');
    events.publish({ ...record('a'), sessionId: 's1', status: 'succeeded' }, 'finish');
    events.flush();
    const resumed = eventStreamResponse(events, {
      gzip: false,
      heartbeatMs: 60_000,
      session: 's1',
      lastEventId: lastId,
    });
    const reset = eventStreamResponse(events, { gzip: false, heartbeatMs: 60_000, lastEventId: '2' });
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
    const response = eventStreamResponse(events, { gzip: false, heartbeatMs: 60_000 });
    expect(events.listenerCount()).toBe(1);
    events.closeAll();
    expect(events.listenerCount()).toBe(0);
    const frames = await readFrames(response, () => false);
    expect(eventsOf(frames, 'ping')).toHaveLength(1);
    const late = eventStreamResponse(events, { gzip: false, heartbeatMs: 60_000 });
    expect(events.listenerCount()).toBe(0);
    await readFrames(late, () => false);
  });

  it('unsubscribes when the client goes away (the body is cancelled)', async () => {
    const events = createTraceEvents();
    const response = eventStreamResponse(events, { gzip: false, heartbeatMs: 60_000 });
    expect(events.listenerCount()).toBe(1);
    await response.body!.cancel();
    expect(events.listenerCount()).toBe(0);
  });

  it('drops a client that stopped reading once it is more than MAX_PENDING_BYTES behind', () => {
    const events = createTraceEvents();
    let dropped = 0;
    const response = eventStreamResponse(events, { gzip: false, heartbeatMs: 60_000, drop: () => dropped++ });
    expect(response.body).not.toBeNull();
    const tool = 't'.repeat(1_000);
    let published = 0;
    while (dropped === 0 && published < 5_000) {
      events.publish(record(`big-${published++}`, tool), 'begin');
      events.flush();
    }
    expect(dropped).toBe(1);
    // Dropped once it passed the bound (each frame is more than its tool name), not long after.
    expect(published * tool.length).toBeGreaterThan(MAX_PENDING_BYTES / 2);
    expect(published * tool.length).toBeLessThan(MAX_PENDING_BYTES + 64 * 1024);
    expect(events.listenerCount()).toBe(0);
  });

  it('answers a HEAD with the headers alone, subscribing to nothing', () => {
    const events = createTraceEvents();
    const response = eventStreamResponse(events, { gzip: true, heartbeatMs: 60_000, headOnly: true });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.body).toBeNull();
    expect(events.listenerCount()).toBe(0);
  });

  it('deflates the stream for a client that accepts gzip: one gzip member of the same frames', async () => {
    const events = createTraceEvents();
    const response = eventStreamResponse(events, { gzip: true, heartbeatMs: 60_000 });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    events.publish(record('z'), 'begin');
    events.flush();
    events.closeAll();
    const text = gunzipSync(Buffer.from(await response.arrayBuffer())).toString('utf8');
    const frames = text.split('\n\n').filter(Boolean);
    expect(eventsOf(frames, 'ping')).toHaveLength(1);
    expect(eventsOf(frames, 'trace')).toEqual([
      expect.stringMatching(/^id: \d+\nevent: trace\ndata: \{"type":"begin","trace_id":"z"/),
    ]);
  });
});
