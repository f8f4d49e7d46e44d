import { describe, expect, it } from 'vitest';
import { eventFrames } from './event-frames';
import { createTraceEvents, REPLAY_LIMIT, RESUME_MARGIN_MS, RING_IDLE_MS, type StreamEvent } from './events';
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
    const id = batch[0]!.id;
    expect(Math.floor(id / 1000)).toBe(at);
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

  it("sends a progress=all stream every call's progress, one per call and batch; progress is published only while one is open", async () => {
    const { clock, events, collect } = setup();
    const all = collect();
    const shared = collect({ progress: 'all' });
    const following = collect({ trace: 't1' });
    events.publish(record('t1'), 'begin');
    events.publish(record('t2'), 'begin');
    await clock.advance(20);
    for (const id of ['t1', 't2', 't2', 't3']) events.publish(record(id), 'progress');
    await clock.advance(20);
    expect(all.seen()).toEqual(['t1:begin', 't2:begin']);
    expect(shared.seen()).toEqual(['t1:begin', 't2:begin', 't1:progress', 't2:progress', 't3:progress']);
    expect(following.seen()).toEqual(['t1:begin', 't1:progress']);
    // The same batch object for every progress=all stream, a batch of its own beside the plain ones.
    const twin = collect({ progress: 'all' });
    events.publish(record('t2'), 'progress');
    await clock.advance(20);
    expect(twin.batches[0]).toBe(shared.batches.at(-1));

    // Once no progress=all stream is open, progress of a call no one follows is not even kept:
    // a stream resuming from before it does not get it.
    const lastId = String(shared.batches.at(-1)!.at(-1)!.id);
    shared.unsubscribe();
    twin.unsubscribe();
    events.publish(record('t2'), 'progress');
    events.publish(record('t1'), 'progress');
    events.publish(record('t3', 'calculator', 'succeeded'), 'finish');
    await clock.advance(20);
    const resumed = collect({ progress: 'all', lastEventId: lastId });
    expect(resumed.seen()).toEqual(['t1:progress', 't3:finish']);
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

  it("keeps a call's update for the streams not following it when a progress of the call comes after it in the batch", async () => {
    const { clock, events, collect } = setup();
    const all = collect();
    const following = collect({ trace: 'a' });
    events.publish(record('a'), 'begin');
    await clock.advance(20);
    // The call starts waiting for approval, and its follower's live view publishes progress.
    events.publish(record('a', 'write_file', 'awaiting_approval'), 'update');
    events.publish(record('a', 'write_file', 'awaiting_approval'), 'progress');
    events.publish(record('a', 'write_file', 'awaiting_approval'), 'progress');
    await clock.advance(20);
    expect(all.batches[1]?.map((event) => `${label(event)}:${(event.data as { status: string }).status}`)).toEqual([
      'a:update:awaiting_approval',
    ]);
    expect(following.batches[1]?.map(label)).toEqual(['a:update', 'a:progress']);
    // A later update or finish still makes both redundant.
    events.publish(record('a', 'write_file', 'running'), 'progress');
    events.publish(record('a', 'write_file', 'running'), 'update');
    events.publish(record('a', 'write_file', 'succeeded'), 'finish');
    await clock.advance(20);
    expect(all.batches[2]?.map(label)).toEqual(['a:finish']);
    expect(following.batches[2]?.map(label)).toEqual(['a:finish']);
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
        events.subscribe(
          { onEvents: (batch) => log.push(`${name} ${batch.map((e) => label(e).split(':')[0]).join(',')}`) },
          options,
        );
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

describe('event ids and resume (Last-Event-ID)', () => {
  const sessionRecord = (id: string, sessionId: string | null) => ({ ...record(id), sessionId }) as TraceRecord;

  it('gives ids after coalescing, strictly increasing, even, never below the time they say', async () => {
    const { clock, events, collect } = setup();
    const stream = collect();
    events.publish(record('a'), 'begin');
    events.publish(record('a'), 'stage', { stage: 'execute' });
    events.publish(record('a'), 'attempt', { attempt: 1 });
    events.publish(record('a', 'calculator', 'succeeded'), 'finish');
    await clock.advance(0);
    events.publish(record('b'), 'begin');
    await clock.advance(500);
    const all = stream.batches.flat();
    // A fast call is begin + finish on the wire: its stage and attempt were superseded, and got no id.
    expect(all.map(label)).toEqual(['a:begin', 'a:finish', 'b:begin']);
    const ids = all.map((e) => e.id);
    expect(ids[1]).toBe(ids[0]! + 2);
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1]!);
    for (const id of ids) expect(id % 2).toBe(0);
    for (const event of all) expect(Math.floor(event.id / 1000)).toBeGreaterThanOrEqual(event.data.at);
    // After a quiet spell the clock's time leads: the id says when it was given.
    const now = clock.epochMs();
    events.publish(record('c'), 'begin');
    await clock.advance(20);
    const later = stream.batches.at(-1)![0]!;
    expect(later.id).toBe(now * 1000);
  });

  it('tells a new subscription where it starts; resuming from there gives what it missed before its first event', async () => {
    const { clock, events } = setup();
    const keeper = events.subscribe({ onEvents: () => {} });
    events.publish(record('a'), 'begin');
    await clock.advance(20);
    let start = -1;
    const first = events.subscribe({ onEvents: () => {}, onStart: (id) => (start = id) });
    expect(start).toBeGreaterThan(0);
    events.publish(record('b'), 'begin');
    // Dropped before its first event was written: the client only knows the start id.
    first();
    await clock.advance(20);
    const resumed: StreamEvent[] = [];
    let startedAgain = false;
    events.subscribe(
      { onEvents: (batch) => resumed.push(...batch), onStart: () => (startedAgain = true) },
      { lastEventId: String(start) },
    );
    expect(resumed.map(label)).toEqual(['b:begin']);
    expect(startedAgain).toBe(false);
    keeper();
  });

  it('keeps stage and attempt events of a call still running at the flush, with their step', async () => {
    const { clock, events, collect } = setup();
    const stream = collect();
    events.publish(record('a'), 'begin');
    events.publish(record('a'), 'stage', { stage: 'execute' });
    await clock.advance(0);
    events.publish(record('a'), 'attempt', { attempt: 1 });
    await clock.advance(20);
    const [begin, stage, attempt] = stream.batches.flat();
    expect(begin!.data).toMatchObject({ type: 'begin' });
    expect(stage!.data).toMatchObject({ type: 'stage', stage: 'execute' });
    expect(attempt!.data).toMatchObject({ type: 'attempt', attempt: 1 });
  });

  it('replays from the ring exactly what a dropped stream missed, passing its filter, then goes on live', async () => {
    const { clock, events, collect } = setup();
    const first = collect({ session: 's1' });
    events.publish(sessionRecord('a', 's1'), 'begin');
    await clock.advance(20);
    const seen = first.batches.flat().at(-1)!.id;
    first.unsubscribe();
    events.publish(sessionRecord('b', 's2'), 'begin');
    events.publish(sessionRecord('a', 's1'), 'finish');
    await clock.advance(20);
    events.publish(sessionRecord('c', 's1'), 'begin');
    // Queued, not flushed when the stream comes back: it arrives live, once.
    const back = collect({ session: 's1', lastEventId: String(seen) });
    expect(back.seen()).toEqual(['a:finish']);
    await clock.advance(20);
    expect(back.seen()).toEqual(['a:finish', 'c:begin']);
    const ids = back.batches.flat().map((e) => e.id);
    expect(ids[0]).toBeGreaterThan(seen);
    expect(ids[1]).toBeGreaterThan(ids[0]!);
  });

  it('filters by session; fault rule events only reach unfiltered streams; approval events pass a trace filter', async () => {
    const { clock, events, collect } = setup();
    const all = collect();
    const s1 = collect({ session: 's1' });
    const following = collect({ trace: 'a' });
    events.publish(sessionRecord('a', 's1'), 'begin');
    events.publish(sessionRecord('b', 's2'), 'begin');
    events.publishApproval(
      {
        ...sessionRecord('a', 's1'),
        approval: { requestedAt: clock.epochMs(), decision: null },
      } as unknown as TraceRecord,
      'requested',
    );
    events.publishFaultRule('created', 'flt_1');
    const ruleAt = clock.epochMs();
    await clock.advance(20);
    expect(all.seen()).toEqual(['a:begin', 'b:begin', 'a:requested', 'fault_rule:created']);
    expect(s1.seen()).toEqual(['a:begin', 'a:requested']);
    expect(following.seen()).toEqual(['a:begin', 'a:requested']);
    expect(all.batches[0]!.at(-1)!.data).toEqual({ type: 'created', rule_id: 'flt_1', at: ruleAt });
  });

  it('tools events reach unfiltered streams only, one per server and batch', async () => {
    const { clock, events, collect } = setup();
    const all = collect();
    const filtered = collect({ tool: 'fs__read_file' });
    events.publishTools('fs');
    events.publishTools('everything');
    events.publishTools('fs');
    const at = clock.epochMs();
    await clock.advance(20);
    expect(filtered.seen()).toEqual([]);
    expect(all.batches.flat().map((event) => event.data)).toEqual([
      { type: 'changed', server: 'everything', at },
      { type: 'changed', server: 'fs', at },
    ]);
  });

  it('resumes from the database when the ring no longer holds the id: odd ids above it, below the live ones after', async () => {
    const clock = createManualClock();
    const asked: number[] = [];
    const at = clock.epochMs();
    const events = createTraceEvents({
      clock,
      flushMs: 20,
      ringEvents: 2,
      history: {
        since(sinceMs, filter, limit) {
          asked.push(sinceMs);
          expect(filter).toEqual({ tool: null, session: 's1', trace: null, principal: null });
          expect(limit).toBe(REPLAY_LIMIT);
          const call = { trace_id: 'x', tool: 'calculator', session_id: 's1' };
          return [
            { kind: 'trace', data: { type: 'begin', ...call, status: 'running', at: at - 10 } },
            { kind: 'trace', data: { type: 'finish', ...call, status: 'succeeded', at: at - 10 } },
          ];
        },
      },
    });
    const batches: (readonly StreamEvent[])[] = [];
    events.subscribe({ onEvents: (batch) => batches.push(batch) });
    for (const id of ['a', 'b', 'c', 'd']) {
      events.publish(record(id), 'begin');
      await clock.advance(20);
    }
    const evicted = batches[0]![0]!.id;
    const back: StreamEvent[] = [];
    events.subscribe({ onEvents: (batch) => back.push(...batch) }, { session: 's1', lastEventId: String(evicted) });
    expect(asked).toEqual([Math.floor(evicted / 1000) - RESUME_MARGIN_MS]);
    expect(back.map(label)).toEqual(['x:begin', 'x:finish']);
    const [one, two] = back.map((e) => e.id);
    expect(one! % 2).toBe(1);
    expect(one).toBeGreaterThan(evicted);
    expect(two).toBeGreaterThan(one!);
    events.publish(sessionRecord('e', 's1'), 'begin');
    await clock.advance(20);
    expect(back.at(-1)!.id).toBeGreaterThan(two!);
    expect(back.at(-1)!.id % 2).toBe(0);
    // A resume from a replayed (odd) id goes to the database again, a little further back.
    events.subscribe({ onEvents: () => {} }, { session: 's1', lastEventId: String(two) });
    expect(asked[1]).toBeLessThan(Math.floor(two! / 1000) - RESUME_MARGIN_MS);
  });

  it('sends a reset when too much was missed, or there is no database to read it from', async () => {
    const { clock, events } = setup();
    events.subscribe({ onEvents: () => {} });
    events.publish(record('a'), 'begin');
    await clock.advance(20);
    const resets: number[] = [];
    const replayed: StreamEvent[] = [];
    events.subscribe(
      { onEvents: (batch) => replayed.push(...batch), onReset: (id) => resets.push(id) },
      { lastEventId: String(clock.epochMs() * 1000 - 2_000_000) },
    );
    expect(replayed).toEqual([]);
    expect(resets).toHaveLength(1);
    // Where the stream stands: a resume from it misses nothing.
    const fromReset: string[] = [];
    events.subscribe({ onEvents: (batch) => fromReset.push(...batch.map(label)) }, { lastEventId: String(resets[0]) });
    expect(fromReset).toEqual([]);
  });

  it('ignores a malformed Last-Event-ID, and keeps ids increasing for a client whose id is from the future', async () => {
    const { clock, events, collect } = setup();
    const garbage = collect({ lastEventId: 'abc' });
    expect(garbage.batches).toEqual([]);
    const future = clock.epochMs() * 1000 + 10_000_000;
    const ahead = collect({ lastEventId: String(future) });
    events.publish(record('a'), 'begin');
    await clock.advance(20);
    expect(ahead.batches.flat()[0]!.id).toBeGreaterThan(future);
  });
});
