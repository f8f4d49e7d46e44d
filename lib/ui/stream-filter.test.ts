import { describe, expect, it } from 'vitest';
import { createTraceEvents, type StreamEvent, type TraceEvent } from '../events';
import { createManualClock } from '../executor/manual-clock';
import type { TraceRecord } from '../executor/types';
import { hearsToolsEvents, hearsTraceEvent, type StreamFilter, serverFilterOf } from './stream-filter';

function record(id: string, tool: string, sessionId: string | null, status: TraceRecord['status'] = 'running') {
  return { id, tool, status, sessionId } as TraceRecord;
}

/** What views ask for: nothing, a tool, a session, a trace, and a tool with a session. */
const FILTERS: StreamFilter[] = [
  {},
  { tool: 'read_file' },
  { session: 's1' },
  { trace: 'a' },
  { trace: 'c' },
  { tool: 'calculator', session: 's2' },
  { tool: 'nothing-matches' },
];

/**
 * A table of events, in batches (a batch is one flush): begins, updates, progress (also of calls
 * nobody follows), a progress right after an update of its call, finishes, a tools change.
 */
const BATCHES: [id: string, tool: string, session: string | null, type: TraceEvent['type'] | 'tools'][][] = [
  [
    ['a', 'read_file', 's1', 'begin'],
    ['b', 'calculator', 's2', 'begin'],
    ['c', 'calculator', null, 'begin'],
  ],
  [
    ['a', 'read_file', 's1', 'progress'],
    ['b', 'calculator', 's2', 'progress'],
    ['c', 'calculator', null, 'update'],
    ['c', 'calculator', null, 'progress'],
  ],
  [
    ['a', 'read_file', 's1', 'stage'],
    ['-', '', null, 'tools'],
    ['b', 'calculator', 's2', 'finish'],
    ['d', 'read_file', 's2', 'begin'],
    ['d', 'read_file', 's2', 'progress'],
  ],
  [
    ['a', 'read_file', 's1', 'finish'],
    ['c', 'calculator', null, 'progress'],
    ['c', 'calculator', null, 'finish'],
    ['d', 'read_file', 's2', 'finish'],
  ],
];

describe('hearsTraceEvent on the shared stream (progress=all)', () => {
  it('gives each view what a stream with its own filter gets from the bus', async () => {
    const clock = createManualClock();
    const bus = createTraceEvents({ clock, flushMs: 10 });
    const collect = (options: object) => {
      const got: StreamEvent[] = [];
      bus.subscribe({ onEvents: (batch) => got.push(...batch) }, options);
      return got;
    };
    const shared = collect({ progress: 'all' });
    const own = FILTERS.map((filter) => collect(filter));
    for (const batch of BATCHES) {
      for (const [id, tool, session, type] of batch) {
        if (type === 'tools') bus.publishTools(null);
        else bus.publish(record(id, tool, session, type === 'finish' ? 'succeeded' : 'running'), type);
      }
      await clock.advance(10);
    }

    const describeEvent = (event: StreamEvent) =>
      event.kind === 'trace' ? `${event.data.trace_id}:${event.data.type}` : event.kind;
    FILTERS.forEach((view, index) => {
      const filter = serverFilterOf(view);
      const heard = shared.filter((event) =>
        event.kind === 'trace' ? hearsTraceEvent(filter, event.data) : hearsToolsEvents(filter),
      );
      expect(heard.map(describeEvent), JSON.stringify(view)).toEqual(own[index]!.map(describeEvent));
    });
    // The table reaches the cases it is for.
    expect(own[0]!.map(describeEvent)).not.toContain('a:progress');
    expect(own[3]!.map(describeEvent)).toContain('a:progress');
    expect(own[4]!.map(describeEvent)).toEqual(['c:begin', 'c:update', 'c:progress', 'c:finish']);
    expect(shared.map(describeEvent)).toContain('d:progress');
  });
});
