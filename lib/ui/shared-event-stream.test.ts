import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../events';
import type { ServerReach } from './event-stream-connection';
import {
  createSharedEventStream,
  LATE_TRY_MS,
  LINGER_MS,
  SHARED_STREAM_URL,
  type StreamSubscriber,
} from './shared-event-stream';
import { fakeBrowser, manualTimers, settle } from './testing/fake-browser';

const event = (trace_id: string, type: TraceEvent['type'] = 'begin', session_id: string | null = null): TraceEvent => ({
  type,
  trace_id,
  tool: 'calculator',
  status: 'running',
  session_id,
  at: 1,
});

/** A view that keeps what it hears. */
function view(filter: Partial<StreamSubscriber> = {}) {
  const heard: string[] = [];
  let reconnects = 0;
  const subscriber: StreamSubscriber = {
    ...filter,
    onEvent: (e) => heard.push(`${e.trace_id}:${e.type}`),
    onReconnect: () => {
      reconnects += 1;
    },
    onTools: (e) => heard.push(`tools:${e.server}`),
  };
  return { subscriber, heard, reconnects: () => reconnects };
}

/** A browser whose tabs share the stream; `kill(i)` closes tab i as a browser would. */
function setup(options: { locks?: boolean; channel?: boolean; probe?: () => Promise<ServerReach> } = {}) {
  const browser = fakeBrowser();
  const unauthenticated: number[] = [];
  const tabs: { stream: ReturnType<typeof createSharedEventStream>; close(): void }[] = [];
  /** A tab; `timers` of its own stand for a hidden tab's, which run late (the test never advances them). */
  const open = (timers = browser.timers) => {
    const tab = browser.tab();
    const index = tabs.length;
    const stream = createSharedEventStream({
      locks: options.locks === false ? null : tab.locks,
      channel: options.channel === false ? null : tab.channel,
      open: tab.open,
      probe: options.probe,
      onUnauthenticated: () => unauthenticated.push(index),
      timers,
      random: () => 1,
      heartbeatMs: 60_000,
    });
    tabs.push({ stream, close: tab.close });
    return stream;
  };
  const kill = (index: number) => {
    tabs[index]!.close();
    tabs[index]!.stream.close();
  };
  return { browser, open, kill, unauthenticated };
}

describe('createSharedEventStream', () => {
  it('opens one unfiltered progress=all stream for every tab; each view hears what its filter lets through', async () => {
    const { browser, open } = setup();
    const [first, second] = [open(), open()];
    const list = view();
    const session = view({ session: 's1' });
    const trace = view({ trace: 'a' });
    first.subscribe(list.subscriber);
    await settle();
    second.subscribe(session.subscriber);
    second.subscribe(trace.subscriber);
    await settle();
    expect(browser.sources.map((s) => s.url)).toEqual([SHARED_STREAM_URL]);
    expect([first.role(), second.role()]).toEqual(['leader', 'waiting']);

    const source = browser.sources[0]!;
    source.open();
    source.emit('trace', event('a', 'begin', 's1'), '2000');
    source.emit('trace', event('a', 'progress', 's1'), '2002');
    source.emit('trace', event('b', 'begin', 's2'), '2004');
    source.emit('tools', { type: 'changed', server: 'fs', at: 1 }, '2006');
    browser.timers.advance(0);
    await settle();
    expect(list.heard).toEqual(['a:begin', 'b:begin', 'tools:fs']);
    expect(session.heard).toEqual(['a:begin']);
    expect(trace.heard).toEqual(['a:begin', 'a:progress']);
    expect(first.status().state).toBe('live');
    expect(second.status().state).toBe('live');
  });

  it('a tab opened later hears the status from the leader, before it has a view of its own', async () => {
    const { browser, open } = setup();
    const first = open();
    first.subscribe(view().subscriber);
    await settle();
    browser.sources[0]!.open();
    const late = open();
    expect(late.status().state).toBe('connecting');
    await settle();
    expect(late.status().state).toBe('live');
    expect(late.role()).toBe('idle');
    late.subscribe(view().subscriber);
    await settle();
    expect(late.role()).toBe('waiting');
    expect(browser.sources).toHaveLength(1);
  });

  it('when the leader tab closes, another takes over from the last event id and every view catches up', async () => {
    const { browser, open, kill } = setup();
    const [first, second, third] = [open(), open(), open()];
    const views = [view(), view(), view({ session: 's1' })];
    first.subscribe(views[0]!.subscriber);
    await settle();
    second.subscribe(views[1]!.subscriber);
    third.subscribe(views[2]!.subscriber);
    await settle();
    const source = browser.sources[0]!;
    source.open();
    source.emit('trace', event('a'), '3000');
    source.emit('approval', { type: 'requested', trace_id: 'a' }, '3002');
    browser.timers.advance(0);
    await settle();

    kill(0);
    await settle();
    expect(second.role()).toBe('leader');
    expect(third.role()).toBe('waiting');
    expect(browser.openSources().map((s) => s.url)).toEqual([`/api/v1/events?progress=all&last_event_id=3002`]);
    // Live all along: the takeover does not blink.
    expect(second.status().state).toBe('live');
    expect(third.status().state).toBe('live');
    browser.openSources()[0]!.open();
    browser.openSources()[0]!.emit('trace', event('b', 'begin', 's1'), '3004');
    browser.timers.advance(0);
    await settle();
    expect(views[1]!.reconnects()).toBe(1);
    expect(views[2]!.reconnects()).toBe(1);
    expect(views[1]!.heard).toEqual(['a:begin', 'b:begin']);
    expect(views[2]!.heard).toEqual(['b:begin']);
  });

  it('"Retry now" in a follower tab reaches the leader', async () => {
    const { browser, open } = setup();
    const [leader, follower] = [open(), open()];
    leader.subscribe(view().subscriber);
    await settle();
    follower.subscribe(view().subscriber);
    await settle();
    browser.sources[0]!.open();
    browser.sources[0]!.fail();
    await settle();
    expect(follower.status()).toEqual({ state: 'disconnected', retryAt: browser.timers.now() + 1_000 });
    follower.retryNow();
    await settle();
    expect(browser.sources).toHaveLength(2);
    browser.sources[1]!.open();
    await settle();
    expect(follower.status().state).toBe('live');
  });

  it("asks the leader for its reconnect try when that comes late (a hidden tab's throttled timers)", async () => {
    const { browser, open } = setup();
    const [leader, follower] = [open(manualTimers()), open()];
    leader.subscribe(view().subscriber);
    await settle();
    follower.subscribe(view().subscriber);
    await settle();
    browser.sources[0]!.open();
    browser.sources[0]!.fail();
    await settle();
    const retryAt = follower.status().retryAt!;
    browser.timers.advance(retryAt + LATE_TRY_MS - 1 - browser.timers.now());
    await settle();
    expect(browser.sources).toHaveLength(1);
    browser.timers.advance(1);
    await settle();
    expect(browser.sources).toHaveLength(2);
  });

  it('lets the stream go LINGER_MS after its last view left; a tab still with views takes over', async () => {
    const { browser, open } = setup();
    const [first, second] = [open(), open()];
    const leave = first.subscribe(view().subscriber);
    await settle();
    const remaining = view();
    second.subscribe(remaining.subscriber);
    await settle();
    browser.sources[0]!.open();
    browser.sources[0]!.emit('trace', event('a'), '5000');
    browser.timers.advance(0);
    await settle();

    leave();
    browser.timers.advance(LINGER_MS - 1);
    expect(first.role()).toBe('leader');
    // A view coming back in time keeps the stream.
    const again = first.subscribe(view().subscriber);
    browser.timers.advance(LINGER_MS);
    expect(first.role()).toBe('leader');
    again();
    browser.timers.advance(LINGER_MS);
    await settle();
    expect(first.role()).toBe('idle');
    expect(second.role()).toBe('leader');
    expect(browser.openSources().map((s) => s.url)).toEqual(['/api/v1/events?progress=all&last_event_id=5000']);
    expect(second.status().state).toBe('live');
  });

  it('without Web Locks (or BroadcastChannel) each page holds one stream of its own for all its views', async () => {
    for (const missing of [{ locks: false }, { channel: false }]) {
      const { browser, open } = setup(missing);
      const [first, second] = [open(), open()];
      const list = view();
      const trace = view({ trace: 'a' });
      first.subscribe(list.subscriber);
      first.subscribe(trace.subscriber);
      second.subscribe(view().subscriber);
      await settle();
      expect(browser.sources.map((s) => s.url)).toEqual([SHARED_STREAM_URL, SHARED_STREAM_URL]);
      expect([first.role(), second.role()]).toEqual(['leader', 'leader']);
      browser.sources[0]!.open();
      browser.sources[0]!.emit('trace', event('a', 'progress'), '1');
      expect(list.heard).toEqual([]);
      expect(trace.heard).toEqual(['a:progress']);
      expect(second.status().state).toBe('connecting');
    }
  });

  it('a 401 found by the probe sends every tab to the login page', async () => {
    const { browser, open, unauthenticated } = setup({ probe: async () => 'unauthenticated' });
    const [leader, follower] = [open(), open()];
    leader.subscribe(view().subscriber);
    await settle();
    follower.subscribe(view().subscriber);
    await settle();
    browser.sources[0]!.open();
    browser.sources[0]!.fail();
    browser.timers.advance(1_000);
    await settle();
    expect(unauthenticated.sort()).toEqual([0, 1]);
    expect(browser.sources).toHaveLength(1);
  });
});
