import type { Filter, TraceEvent } from '../events';
import {
  type ConnectionStatus,
  type ConnectionTimers,
  connectEventStream,
  type EventSourceLike,
  type ServerReach,
  type ToolsChangedEvent,
} from './event-stream-connection';
import { hearsToolsEvents, hearsTraceEvent, type StreamFilter, serverFilterOf } from './stream-filter';

/** The one stream a browser holds: unfiltered, with every call's progress; each view filters it. */
export const SHARED_STREAM_URL = '/api/v1/events?progress=all';
/** The Web Lock whose holder (one tab) keeps the stream open, and the channel it hands events on. */
export const SHARED_STREAM_NAME = 'toolscope:event-stream';
/** A tab whose last view went keeps the stream this long: a client navigation mounts the next view. */
export const LINGER_MS = 1_000;
/**
 * A reconnect try this late in the leader's tab (a hidden tab's timers are throttled, up to once a
 * minute) is asked for by a tab that waits for it, with "retry".
 */
export const LATE_TRY_MS = 2_000;

/** A view of the stream: its filter (as the server's) and what it is told. */
export interface StreamSubscriber extends StreamFilter {
  onEvent(event: TraceEvent): void;
  /** The stream came back after a drop, or another tab's was taken over: refetch what was missed. */
  onReconnect?(): void;
  /** `event: tools`, for unfiltered views only. */
  onTools?(event: ToolsChangedEvent): void;
}

/** What tabs tell each other on the channel. */
export type SharedStreamMessage =
  /** The holder: events (in order) and the last event id heard. */
  | { type: 'batch'; items: BatchItem[]; lastEventId: string | null }
  | { type: 'status'; status: ConnectionStatus; lastEventId: string | null }
  | { type: 'reconnect' }
  | { type: 'unauthenticated' }
  /** The holder let the stream go with no view left (a tab about to take over keeps its status). */
  | { type: 'stopped' }
  /** A tab that wants the stream: the holder answers with `status`. */
  | { type: 'hello' }
  /** "Retry now" in another tab: the holder skips its wait. */
  | { type: 'retry' };

type BatchItem = { kind: 'trace'; event: TraceEvent } | { kind: 'tools'; event: ToolsChangedEvent };

/** The part of `navigator.locks` used here; tests hand in a fake. */
export interface LocksLike {
  request(name: string, options: { signal: AbortSignal }, callback: () => Promise<void> | void): Promise<unknown>;
}

/** The part of a BroadcastChannel used here. */
export interface ChannelLike {
  postMessage(message: SharedStreamMessage): void;
  onmessage: ((event: MessageEvent<SharedStreamMessage>) => void) | null;
}

export interface SharedStreamOptions {
  /** Web Locks; null where missing (a page not served securely, an old browser): one stream per page. */
  locks: LocksLike | null;
  /** The tabs' channel; null where BroadcastChannel is missing: one stream per page. */
  channel: ChannelLike | null;
  open(url: string): EventSourceLike;
  /** Asked before each reconnect try (see `connectEventStream`). */
  probe?: () => Promise<ServerReach>;
  /** The server wants a login now: this tab's page goes to the login page. */
  onUnauthenticated?(): void;
  url?: string;
  heartbeatMs?: number;
  timers?: ConnectionTimers;
  random?: () => number;
}

const CONNECTING: ConnectionStatus = { state: 'connecting', retryAt: null };

const realTimers: ConnectionTimers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** One view, with its filter made once. */
interface Member {
  subscriber: StreamSubscriber;
  filter: Filter;
  tools: boolean;
}

/**
 * One event stream for every tab of a browser: the tab holding a Web Lock (the leader) keeps the
 * only connection (`connectEventStream`, unfiltered, `progress=all`) and hands what it hears to the
 * others over a BroadcastChannel; every view filters for itself as the server would.
 * 1. A tab says `hello` (the leader answers with its status); one with at least one view asks for
 *    the lock too. A tab whose views are all gone lets the stream go after LINGER_MS.
 * 2. The leader delivers each event to its own views at once and posts it to the others, with the
 *    last event id; status, reconnects and 401s go out too. A waiting tab asks for a reconnect try
 *    that comes LATE_TRY_MS late (the leader's tab may be hidden, its timers throttled).
 * 3. When the leader's tab closes or navigates away, the lock passes to another tab, which opens
 *    the stream after the last event id it heard (the server replays what came meanwhile) and
 *    tells every view to catch up.
 * 4. Without Web Locks or BroadcastChannel, each page holds one stream of its own for all its views.
 * @example const stream = createSharedEventStream({ locks: navigator.locks, channel, open: (url) => new EventSource(url) });
 */
export function createSharedEventStream(options: SharedStreamOptions) {
  const timers = options.timers ?? realTimers;
  const channel = options.locks ? options.channel : null;
  const members = new Set<Member>();
  const statusListeners = new Set<() => void>();
  const reconnectListeners = new Set<() => void>();
  let status = CONNECTING;
  let lastEventId: string | null = null;
  let role: 'idle' | 'waiting' | 'leader' = 'idle';
  let connection: ReturnType<typeof connectEventStream> | null = null;
  let release: (() => void) | null = null;
  let request: AbortController | null = null;
  let linger: unknown = null;
  // The leader's batch for the other tabs, posted once the listener that heard it returns (a
  // microtask: a hidden tab's timers would hold it back).
  let items: BatchItem[] = [];
  let idMoved = false;
  let flushQueued = false;
  // A waiting tab's reminder to the leader, should its reconnect try come late.
  let nudge: unknown = null;

  const guarded = (run: () => void) => {
    try {
      run();
    } catch (error) {
      console.error('[toolscope] an event stream listener failed:', error);
    }
  };
  const setStatus = (next: ConnectionStatus) => {
    if (next.state === status.state && next.retryAt === status.retryAt) return;
    status = next;
    for (const listener of statusListeners) guarded(listener);
  };
  const deliver = (item: BatchItem) => {
    for (const member of members) {
      if (item.kind === 'trace') {
        if (hearsTraceEvent(member.filter, item.event)) guarded(() => member.subscriber.onEvent(item.event));
      } else if (member.tools) {
        const onTools = member.subscriber.onTools;
        if (onTools) guarded(() => onTools(item.event));
      }
    }
  };
  const reconnected = () => {
    for (const member of members) {
      const onReconnect = member.subscriber.onReconnect;
      if (onReconnect) guarded(onReconnect);
    }
    for (const listener of reconnectListeners) guarded(listener);
  };

  const flush = () => {
    flushQueued = false;
    if (!channel || (items.length === 0 && !idMoved)) return;
    channel.postMessage({ type: 'batch', items, lastEventId });
    items = [];
    idMoved = false;
  };
  const queue = (item: BatchItem | null) => {
    if (!channel) return;
    if (item) items.push(item);
    else idMoved = true;
    if (flushQueued) return;
    flushQueued = true;
    queueMicrotask(flush);
  };
  /** While the leader says when its next try is, ask for it should it not come in time. */
  const watchLeader = () => {
    if (nudge !== null) timers.clearTimeout(nudge);
    nudge = null;
    const told = status;
    if (role !== 'waiting' || told.state !== 'disconnected' || told.retryAt === null) return;
    nudge = timers.setTimeout(
      () => {
        nudge = null;
        if (status === told && role === 'waiting') channel?.postMessage({ type: 'retry' });
      },
      Math.max(0, told.retryAt + LATE_TRY_MS - timers.now()),
    );
  };
  const post = (message: SharedStreamMessage) => {
    flush();
    channel?.postMessage(message);
  };

  /** Opens the stream in this tab; `done` gives the lock back. */
  const lead = (done: (() => void) | null) => {
    role = 'leader';
    watchLeader();
    release = done;
    // A page of its own starts from nothing; a tab taking over keeps the status it was told.
    if (!channel) setStatus(CONNECTING);
    connection = connectEventStream({
      url: options.url ?? SHARED_STREAM_URL,
      open: options.open,
      lastEventId,
      heartbeatMs: options.heartbeatMs,
      timers,
      random: options.random,
      probe: options.probe,
      onEvent(event) {
        const item: BatchItem = { kind: 'trace', event };
        deliver(item);
        queue(item);
      },
      onTools(event) {
        const item: BatchItem = { kind: 'tools', event };
        deliver(item);
        queue(item);
      },
      onEventId(id) {
        lastEventId = id;
        queue(null);
      },
      onStatus(next) {
        setStatus(next);
        post({ type: 'status', status: next, lastEventId });
      },
      onReconnect() {
        post({ type: 'reconnect' });
        reconnected();
      },
      onUnauthenticated() {
        post({ type: 'unauthenticated' });
        options.onUnauthenticated?.();
      },
    });
  };

  const want = () => {
    if (linger !== null) timers.clearTimeout(linger);
    linger = null;
    if (role !== 'idle') return;
    const locks = options.locks;
    if (!channel || !locks) return lead(null);
    role = 'waiting';
    watchLeader();
    const asked = new AbortController();
    request = asked;
    channel.postMessage({ type: 'hello' });
    locks
      .request(SHARED_STREAM_NAME, { signal: asked.signal }, () => {
        // Granted after the views went: give it back at once.
        if (request !== asked || role !== 'waiting') return;
        request = null;
        return new Promise<void>((resolve) => lead(resolve));
      })
      .catch(() => {
        // aborted: the views went before the lock came
      });
  };

  const stop = () => {
    linger = null;
    if (role === 'waiting') {
      request?.abort();
      request = null;
    } else if (role === 'leader') {
      flush();
      connection?.close();
      connection = null;
      post({ type: 'stopped' });
      release?.();
      release = null;
    }
    role = 'idle';
    watchLeader();
    // Nothing is heard from now on: a later stream starts afresh, not with a replay of the gap.
    lastEventId = null;
    setStatus(CONNECTING);
  };

  if (channel) {
    channel.onmessage = ({ data: message }) => {
      if (role === 'leader') {
        // Another tab's late words (its stream is gone) would only repeat what this one hears.
        if (message.type === 'hello') post({ type: 'status', status, lastEventId });
        else if (message.type === 'retry') connection?.retryNow();
        return;
      }
      switch (message.type) {
        case 'batch':
          if (message.lastEventId !== null) lastEventId = message.lastEventId;
          for (const item of message.items) deliver(item);
          break;
        case 'status':
          if (message.lastEventId !== null) lastEventId = message.lastEventId;
          setStatus(message.status);
          watchLeader();
          break;
        case 'reconnect':
          reconnected();
          break;
        case 'unauthenticated':
          options.onUnauthenticated?.();
          break;
        case 'stopped':
          // A waiting tab takes over from where the stream stopped; an idle one no longer hears it.
          if (role !== 'idle') break;
          lastEventId = null;
          setStatus(CONNECTING);
          break;
      }
    };
    // A tab without views yet still shows the stream's state (the banner): ask for it.
    channel.postMessage({ type: 'hello' });
  }

  return {
    /**
     * Adds a view: its events from now on, filtered as the server would for `tool`, `session`,
     * `trace`. Returns the unsubscribe function.
     */
    subscribe(subscriber: StreamSubscriber): () => void {
      const filter = serverFilterOf(subscriber);
      const member: Member = { subscriber, filter, tools: hearsToolsEvents(filter) };
      members.add(member);
      want();
      return () => {
        if (!members.delete(member) || members.size > 0 || linger !== null) return;
        linger = timers.setTimeout(stop, LINGER_MS);
      };
    },
    /** The stream's state as this tab knows it (the leader's, told to the others). */
    status: () => status,
    onStatus(listener: () => void): () => void {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    /** `listener` runs each time the stream comes back (as each view's `onReconnect`), without being a view. */
    onReconnect(listener: () => void): () => void {
      reconnectListeners.add(listener);
      return () => reconnectListeners.delete(listener);
    },
    /** Skips the wait before the next reconnect try, in whichever tab holds the stream. */
    retryNow() {
      if (role === 'leader') connection?.retryNow();
      else channel?.postMessage({ type: 'retry' });
    },
    /** This tab's part: `leader` holds the stream (also a page alone), `waiting` hears it from another tab. */
    role: () => role,
    /** Ends this tab's part at once (tests; a page's own unload ends it anyway). */
    close() {
      members.clear();
      if (linger !== null) timers.clearTimeout(linger);
      stop();
      if (channel) channel.onmessage = null;
    },
  };
}

export type SharedEventStream = ReturnType<typeof createSharedEventStream>;
