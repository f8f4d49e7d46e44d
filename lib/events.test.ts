import { describe, expect, it } from 'vitest';
import { eventFrames } from './event-frames';
import { createTraceEvents, RING_IDLE_MS, type StreamEvent } from './events';
import { createManualClock } from './executor/manual-clock';
import type { TraceRecord } from './executor/types';

function record(id: string, tool = 'calculator', status: TraceRecord['status'] = 'running'): TraceRecord {
  return { id, tool, status, sessionId: null } as TraceRecord;
}

/** `trace-id:type` of a trace event, `kind:type` of the others. */
function label(event: StreamEvent): string {
  return event.kind === 'trace' || event.kind === 'approval'
    ? `${event.data.trace_id}:${event.data.type}`
    : `${event.kind}:${event.data.type}`;
}

/** A bus on a manual clock, and a stream-like subscriber that keeps each batch it gets. */
function setup(flushMs = 20) {
  const clock = createManualClock();
  const events = createTraceEvents({ clock, flushMs });
  const collect = (options = {}) => {
    const batches: (readonly StreamEvent[])[] = [];
    const unsubscribe = events.subscribe({ onEvents: (batch) => batches.push(batch) }, options);
    return { batches, unsubscribe, seen: () => batches.flat().map(label) };
  };
  return { clock, events, collect };
}

describe('createTraceEvents', () => {
  it('sends an event after a quiet spell at once, then at most one batch per flush interval', async () => {
    const { clock, events, collect } = setup(20);
    const stream = collect();
    events.publish(record('a'), 'begin');
    expect(stream.batches).toHaveLength(0);
    await clock.advance(0);
    expect(stream.seen()).toEqual(['a:begin']);

    events.publish(record('b'), 'begin');
    events.publish(record('c'), 'begin');
    await clock.advance(19);
    expect(stream.batches).toHaveLength(1);
    events.publish(record('b', 'calculator', 'succeeded'), 'finish');
    await clock.advance(1);
    expect(stream.batches).toHaveLength(2);
    expect(stream.batches[1]!.map(label)).toEqual(['b:begin', 'c:begin', 'b:finish']);

    await clock.advance(100);
    events.publish(record('c', 'calculator', 'failed'), 'finish');
    await clock.advance(0);
    expect(stream.batches).toHaveLength(3);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('hands every stream with the same filter the same array, so its frames are encoded once', async () => {
    const { clock, events, collect } = setup();
    const all = [collect(), collect(), collect()];
    const reads = [collect({ tool: 'read_file' }), collect({ tool: 'read_file' })];
    const at = clock.epochMs();
    events.publish(record('a'), 'begin');
    events.publish(record('r', 'read_file'), 'begin');
    await clock.advance(20);
    const batch = all[0]!.batches[0]!;
    for (const stream of all) expect(stream.batches).toEqual([batch]);
    for (const stream of all) expect(stream.batches[0]).toBe(batch);
    expect(reads[1]!.batches[0]).toBe(reads[0]!.batches[0]);
    expect(reads[0]!.seen()).toEqual(['r:begin']);
    expect(eventFrames(batch)).toBe(eventFrames(all[2]!.batches[0]!));
    const id = at * 1000 + 2; // at * 1000 is the floor: no client saw it
    expect(eventFrames(batch).toString()).toBe(
      `id: ${id}\nevent: trace\ndata: {"type":"begin","trace_id":"a","tool":"calculator","status":"running","session_id":null,"at":${at}}\n\n` +
        `id: ${id + 2}\nevent: trace\ndata: {"type":"begin","trace_id":"r","tool":"read_file","status":"running","session_id":null,"at":${at}}\n\n`,
    );
  });

  it('sends progress only to streams following that trace, and only its events', async () => {
    const { clock, events, collect } = setup();
    const all = collect();
    const following = collect({ trace: 't1' });
    for (const [id, type] of [
      ['t1', 'begin'],
      ['t1', 'progress'],
      ['t2', 'begin'],
      ['t2', 'progress'],
    ] as const) {
      events.publish(record(id), type);
      await clock.advance(20);
    }
    events.publish(record('t1', 'calculator', 'succeeded'), 'finish');
    await clock.advance(20);
    expect(all.seen()).toEqual(['t1:begin', 't2:begin', 't1:finish']);
    expect(following.seen()).toEqual(['t1:begin', 't1:progress', 't1:finish']);
  });

  it("drops an update or progress superseded in its batch by its call's later event; keeps every begin and finish", async () => {
    const { clock, events, collect } = setup();
    const all = collect();
    const following = collect({ trace: 'a' });
    events.publish(record('a'), 'begin');
    events.publish(record('a'), 'progress');
    events.publish(record('b'), 'begin');
    events.publish(record('a', 'calculator', 'awaiting_approval'), 'update');
    events.publish(record('a'), 'progress');
    events.publish(record('b', 'calculator', 'succeeded'), 'finish');
    events.publish(record('a', 'calculator', 'succeeded'), 'finish');
    events.publish(record('c'), 'begin');
    events.publish(record('c', 'calculator', 'awaiting_approval'), 'update');
    await clock.advance(20);
    expect(all.seen()).toEqual(['a:begin', 'b:begin', 'b:finish', 'a:finish', 'c:begin', 'c:update']);
    expect(following.seen()).toEqual(['a:begin', 'a:finish']);
  });

  it('hands in-process listeners each event at once, unbatched', () => {
    const { events } = setup();
    const heard: string[] = [];
    events.subscribe((event) => heard.push(label(event)));
    events.subscribe({ onEvent: (event) => heard.push(`following ${label(event)}`) }, { trace: 'a' });
    events.publish(record('a'), 'begin');
    events.publish(record('a'), 'progress');
    events.publish(record('b'), 'begin');
    expect(heard).toEqual(['a:begin', 'following a:begin', 'following a:progress', 'b:begin']);
  });

  it('keeps delivering to the others when one subscriber throws', async () => {
    const { clock, events, collect } = setup();
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      events.subscribe({
        onEvents: () => {
          throw new Error('listener failed (expected by the test)');
        },
      });
      const stream = collect();
      events.publish(record('a'), 'begin');
      await clock.advance(20);
      expect(stream.seen()).toEqual(['a:begin']);
      expect(errors).toHaveLength(1);
    } finally {
      console.error = original;
    }
  });

  it('on closeAll delivers what is queued, then ends every stream; later ones end at once', async () => {
    const { clock, events } = setup();
    const log: string[] = [];
    events.subscribe({
      onEvents: (batch) => log.push(...batch.map(label)),
      onClose: () => log.push('closed'),
    });
    events.subscribe({ onEvent: () => {}, onClose: () => log.push('listener closed') });
    events.publish(record('a'), 'begin');
    events.closeAll();
    expect(log).toEqual(['a:begin', 'closed', 'listener closed']);
    expect(events.listenerCount()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
    events.subscribe({ onEvents: () => {}, onClose: () => log.push('late closed') });
    expect(log.at(-1)).toBe('late closed');
    expect(events.listenerCount()).toBe(0);
  });

  it('stops keeping events RING_IDLE_MS after the last stream left; the next one cannot resume from the ring', async () => {
    const { clock, events, collect } = setup();
    const stream = collect();
    events.publish(record('a'), 'begin');
    await clock.advance(20);
    const seen = stream.batches[0]![0]!.id;
    stream.unsubscribe();
    expect(events.listenerCount()).toBe(0);
    // Still kept for a while: a dropped client resumes from the ring.
    events.publish(record('b'), 'begin');
    await clock.advance(20);
    const back = collect({ lastEventId: String(seen) });
    expect(back.seen()).toEqual(['b:begin']);
    back.unsubscribe();
    await clock.advance(RING_IDLE_MS + 1);
    events.publish(record('c'), 'begin');
    expect(clock.pendingTimers()).toBe(0);
    const resets: number[] = [];
    events.subscribe({ onEvents: () => {}, onReset: (id) => resets.push(id) }, { lastEventId: String(seen) });
    expect(resets).toHaveLength(1);
  });

  describe('a timed flush in slices (streamsPerTurn)', () => {
    /** A bus writing `perTurn` streams a turn, with its later turns held until `turn()` runs one. */
    function sliced(perTurn: number) {
      const clock = createManualClock();
      const turns: (() => void)[] = [];
      const events = createTraceEvents({
        clock,
        flushMs: 20,
        streamsPerTurn: perTurn,
        defer: (run) => turns.push(run),
      });
      const log: string[] = [];
      const stream = (name: string, options = {}) =>
        events.subscribe({ onEvents: (batch) => log.push(`${name} ${batch.map((e) => label(e).split(':')[0]).join(',')}`) }, options);
      const turn = () => turns.shift()?.();
      return { clock, events, log, stream, turn, turns };
    }

    it('writes to at most that many streams a turn, every stream in order, batch after batch', async () => {
      const { clock, events, log, stream, turn, turns } = sliced(2);
      for (const name of ['s1', 's2', 's3', 's4', 's5']) stream(name);
      events.publish(record('a'), 'begin');
      await clock.advance(0);
      expect(log).toEqual(['s1 a', 's2 a']);
      turn();
      expect(log).toEqual(['s1 a', 's2 a', 's3 a', 's4 a']);
      events.publish(record('b'), 'begin');
      await clock.advance(20);
      // The new batch waits behind the old one's last stream.
      expect(log.slice(4)).toEqual(['s5 a', 's1 b']);
      turn();
      turn();
      turn();
      expect(log.slice(6)).toEqual(['s2 b', 's3 b', 's4 b', 's5 b']);
      expect(turns).toHaveLength(0);
    });

    it('skips a stream that unsubscribed while its delivery waited', async () => {
      const { clock, events, log, stream, turn } = sliced(1);
      stream('s1');
      const leave = stream('s2');
      stream('s3');
      events.publish(record('a'), 'begin');
      await clock.advance(0);
      leave();
      turn();
      turn();
      expect(log).toEqual(['s1 a', 's3 a']);
    });

    it('flush() and closeAll() still write everything at once', async () => {
      const { clock, events, log, stream } = sliced(1);
      stream('s1');
      stream('s2');
      stream('s3');
      events.publish(record('a'), 'begin');
      await clock.advance(0);
      events.publish(record('b'), 'begin');
      events.flush();
      expect(log).toEqual(['s1 a', 's2 a', 's3 a', 's1 b', 's2 b', 's3 b']);
      events.publish(record('c'), 'begin');
      events.closeAll();
      expect(log.slice(6)).toEqual(['s1 c', 's2 c', 's3 c']);
    });
  });
});
