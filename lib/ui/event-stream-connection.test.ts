import { describe, expect, it } from 'vitest';
import {
  type ConnectionStatus,
  connectEventStream,
  type EventStreamOptions,
  RECONNECT_MAX_MS,
  reconnectDelay,
  type ServerReach,
} from './event-stream-connection';
import { FakeSource, manualTimers } from './testing/fake-browser';

/** Lets the probe's answer (a promise) be handled. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A probe whose answers the test gives, one per question. */
function scriptedProbe() {
  const asked: ((reach: ServerReach) => void)[] = [];
  return {
    probe: () => new Promise<ServerReach>((resolve) => asked.push(resolve)),
    asked: () => asked.length,
    async answer(reach: ServerReach) {
      asked.shift()?.(reach);
      await settle();
    },
  };
}

function setup(random = () => 0.5, extra: Partial<EventStreamOptions> = {}) {
  const timers = manualTimers();
  const sources: FakeSource[] = [];
  const statuses: ConnectionStatus[] = [];
  const events: unknown[] = [];
  const tools: unknown[] = [];
  let reconnects = 0;
  const connection = connectEventStream({
    url: '/api/v1/events?trace=t1',
    open: (url) => {
      const source = new FakeSource(url);
      sources.push(source);
      return source;
    },
    onEvent: (event) => events.push(event),
    onTools: (event) => tools.push(event),
    onStatus: (status) => statuses.push(status),
    onReconnect: () => {
      reconnects += 1;
    },
    heartbeatMs: 1_000,
    timers,
    random,
    ...extra,
  });
  const last = () => sources[sources.length - 1]!;
  return { timers, sources, statuses, events, tools, connection, last, reconnects: () => reconnects };
}

describe('reconnectDelay', () => {
  it('doubles from 1 s up to 3 s, jittered between half and all of it', () => {
    expect(reconnectDelay(1, 0)).toBe(500);
    expect(reconnectDelay(1, 0.999_999)).toBe(1_000);
    expect(reconnectDelay(2, 1)).toBe(2_000);
    expect(reconnectDelay(3, 1)).toBe(3_000);
    expect(reconnectDelay(10, 1)).toBe(RECONNECT_MAX_MS);
    expect(reconnectDelay(50, 0)).toBe(RECONNECT_MAX_MS / 2);
  });
});

describe('connectEventStream', () => {
  it('is connecting, then live when the stream opens, and hands over trace events', () => {
    const t = setup();
    expect(t.connection.status()).toEqual({ state: 'connecting', retryAt: null });
    t.last().open();
    expect(t.connection.status().state).toBe('live');
    t.last().emit('trace', JSON.stringify({ type: 'progress', trace_id: 't1' }));
    t.last().emit('trace', 'not json');
    expect(t.events).toEqual([{ type: 'progress', trace_id: 't1' }]);
    expect(t.sources[0]!.url).toBe('/api/v1/events?trace=t1');
  });

  it('hands over tools events apart from trace events, and counts them as heard', () => {
    const t = setup();
    t.last().open();
    t.last().emit('tools', JSON.stringify({ type: 'changed', server: 'fs', at: 1 }), '7');
    t.last().emit('tools', 'not json', '8');
    expect(t.tools).toEqual([{ type: 'changed', server: 'fs', at: 1 }]);
    expect(t.events).toEqual([]);
    t.last().fail();
    t.timers.advance(750);
    expect(t.last().url).toBe('/api/v1/events?trace=t1&last_event_id=8');
  });

  it('reconnects after the last event id it heard (?last_event_id=), and refetches on event: reset', () => {
    const t = setup();
    t.last().open();
    t.last().emit('trace', JSON.stringify({ type: 'begin', trace_id: 't1' }), '1000');
    t.last().emit('approval', JSON.stringify({ type: 'requested', trace_id: 't1' }), '1002');
    t.last().fail();
    t.timers.advance(750);
    expect(t.last().url).toBe('/api/v1/events?trace=t1&last_event_id=1002');
    t.last().open();
    expect(t.reconnects()).toBe(1);
    t.last().emit('reset', '{}', '5000');
    expect(t.reconnects()).toBe(2);
    t.last().fail();
    t.timers.advance(750);
    expect(t.last().url).toBe('/api/v1/events?trace=t1&last_event_id=5000');
  });

  it('stays live while pings arrive and drops after 2.5 heartbeats of silence', () => {
    const t = setup();
    t.last().open();
    for (let i = 0; i < 10; i++) {
      t.timers.advance(2_000);
      t.last().emit('ping', '{}');
    }
    expect(t.connection.status().state).toBe('live');
    expect(t.sources).toHaveLength(1);
    t.timers.advance(2_499);
    expect(t.connection.status().state).toBe('live');
    t.timers.advance(1);
    expect(t.connection.status()).toEqual({ state: 'disconnected', retryAt: t.timers.now() + 750 });
    expect(t.sources[0]!.closed).toBe(true);
  });

  it('treats an error as a drop, closes the source and reconnects with growing delays', () => {
    const t = setup(() => 1);
    t.last().open();
    const opened = t.timers.now();
    t.last().fail();
    expect(t.sources[0]!.closed).toBe(true);
    expect(t.connection.status()).toEqual({ state: 'disconnected', retryAt: opened + 1_000 });
    t.timers.advance(999);
    expect(t.sources).toHaveLength(1);
    t.timers.advance(1);
    expect(t.sources).toHaveLength(2);
    // Trying now: still disconnected, no retry scheduled until this try fails.
    expect(t.connection.status()).toEqual({ state: 'disconnected', retryAt: null });
    t.last().fail();
    expect(t.connection.status().retryAt).toBe(t.timers.now() + 2_000);
    t.timers.advance(2_000);
    t.last().fail();
    expect(t.connection.status().retryAt).toBe(t.timers.now() + 3_000);
    t.timers.advance(3_000);
    // A try that never opens (a hung server) is a drop too, after the same silence.
    t.timers.advance(2_500);
    expect(t.sources).toHaveLength(4);
    expect(t.connection.status().retryAt).toBe(t.timers.now() + RECONNECT_MAX_MS);
    expect(t.reconnects()).toBe(0);
  });

  it('calls onReconnect once a reconnect opens, and starts the backoff over', () => {
    const t = setup(() => 1);
    t.last().open();
    t.last().fail();
    t.timers.advance(1_000);
    t.last().fail();
    t.timers.advance(2_000);
    t.last().open();
    expect(t.connection.status()).toEqual({ state: 'live', retryAt: null });
    expect(t.reconnects()).toBe(1);
    t.last().fail();
    expect(t.connection.status().retryAt).toBe(t.timers.now() + 1_000);
  });

  it('ignores a replaced source and stops everything on close', () => {
    const t = setup();
    t.last().open();
    const first = t.last();
    first.fail();
    t.timers.advance(1_000);
    first.emit('trace', JSON.stringify({ id: 'late' }));
    first.fail();
    expect(t.events).toEqual([]);
    expect(t.sources).toHaveLength(2);
    t.connection.close();
    expect(t.last().closed).toBe(true);
    expect(t.timers.pending()).toBe(0);
  });

  it('retryNow skips the wait', () => {
    const t = setup();
    t.last().fail();
    expect(t.connection.status().state).toBe('disconnected');
    t.connection.retryNow();
    expect(t.sources).toHaveLength(2);
    t.last().open();
    expect(t.reconnects()).toBe(1);
  });

  it('starts after a given event id (a stream taken over from another tab): the first open catches up', () => {
    const ids: string[] = [];
    const t = setup(() => 0.5, { lastEventId: '4000', onEventId: (id) => ids.push(id) });
    expect(t.last().url).toBe('/api/v1/events?trace=t1&last_event_id=4000');
    t.last().open();
    expect(t.reconnects()).toBe(1);
    t.last().emit('ping', '{}', '4000');
    t.last().emit('trace', JSON.stringify({ type: 'begin', trace_id: 't1' }), '4002');
    t.last().emit('ping', '{}', '4002');
    expect(ids).toEqual(['4002']);
    expect(t.connection.lastEventId()).toBe('4002');
  });

  it('asks the probe before each try: no answer counts as a failed try without opening a stream', async () => {
    const probe = scriptedProbe();
    const t = setup(() => 1, { probe: probe.probe });
    expect(t.sources).toHaveLength(1);
    t.last().open();
    t.last().fail();
    t.timers.advance(1_000);
    expect(probe.asked()).toBe(1);
    expect(t.connection.status()).toEqual({ state: 'disconnected', retryAt: null });
    await probe.answer('unreachable');
    expect(t.sources).toHaveLength(1);
    expect(t.connection.status().retryAt).toBe(t.timers.now() + 2_000);
    t.timers.advance(2_000);
    await probe.answer('ok');
    expect(t.sources).toHaveLength(2);
    t.last().open();
    expect(t.connection.status().state).toBe('live');
    expect(t.reconnects()).toBe(1);
  });

  it('stops trying on a 401 and says so; retryNow tries again', async () => {
    const probe = scriptedProbe();
    let unauthenticated = 0;
    const t = setup(() => 1, {
      probe: probe.probe,
      onUnauthenticated: () => {
        unauthenticated += 1;
      },
    });
    t.last().fail();
    t.timers.advance(1_000);
    await probe.answer('unauthenticated');
    expect(unauthenticated).toBe(1);
    expect(t.timers.pending()).toBe(0);
    t.timers.advance(60_000);
    expect(probe.asked()).toBe(0);
    t.connection.retryNow();
    expect(probe.asked()).toBe(1);
    await probe.answer('ok');
    expect(t.sources).toHaveLength(2);
  });

  it('ignores a probe answered after close', async () => {
    const probe = scriptedProbe();
    const t = setup(() => 1, { probe: probe.probe });
    t.last().fail();
    t.timers.advance(1_000);
    t.connection.close();
    await probe.answer('ok');
    expect(t.sources).toHaveLength(1);
    expect(t.timers.pending()).toBe(0);
  });
});
