import { type Clock, systemClock, type TimerHandle } from './executor/clock';
import type { CallStatus, TraceRecord } from './executor/types';

/** How often an event stream says it is alive; clients treat ~2.5 missed beats as a drop. */
export const HEARTBEAT_INTERVAL_MS = 5_000;

/**
 * The least time between two deliveries. Under load, the events of this long go out as one batch
 * (one write per open stream instead of one per event); an event after a quiet spell goes out at
 * once. Every live view throttles its refetch to 250 ms or more, so 50 ms is not seen. A flush
 * to 200 streams costs ~2 ms (one write syscall each, whatever the batch's size): ~4% of a core
 * at 50 ms, ~11% at 20 ms.
 */
export const FLUSH_INTERVAL_MS = 50;

/**
 * What the live views hear about: a call started, changed status, finished, or (for streams that
 * follow one trace) made progress: a stage or an attempt started or ended, output arrived.
 */
export interface TraceEvent {
  type: 'begin' | 'update' | 'finish' | 'progress';
  id: string;
  tool: string;
  status: CallStatus;
  sessionId: string | null;
  at: number;
}

/**
 * One of `onEvents` (streams: batched) or `onEvent` (in-process listeners: each event as it is
 * published, nothing to write per event).
 */
export interface TraceSubscriber {
  /**
   * A batch of events in the order they were published, already filtered for this subscription;
   * never empty. Every subscription with the same filter gets the same array (not to be changed),
   * so what is made of it (the stream's bytes) can be made once per batch and filter.
   */
  onEvents?(events: readonly TraceEvent[]): void;
  /** Each event that passes the filter, at once. */
  onEvent?(event: TraceEvent): void;
  /** The bus is shutting down: end the stream. Called once, also for subscriptions made after `closeAll`. */
  onClose?(): void;
}

export interface SubscribeOptions {
  /** Only this tool's events. */
  tool?: string | null;
  /**
   * Follow one trace: only its events, and its `progress` events too. Other subscribers never get
   * progress events, so that many open list tabs are not flooded by one chatty call.
   */
  trace?: string | null;
}

export interface TraceEventsOptions {
  /** Time and timers; tests hand in a manual clock. */
  clock?: Clock;
  flushMs?: number;
  /**
   * How many streams a timed flush writes to in one turn of the event loop; the rest wait for
   * `defer`. Writing a busy batch to hundreds of streams takes milliseconds, and requests would
   * wait for all of it; in slices they are served in between. Unlimited when not given.
   */
  streamsPerTurn?: number;
  /** Runs the next slice of deliveries on a later turn (the server uses `setImmediate`). */
  defer?: (run: () => void) => void;
}

export interface TraceEvents {
  /** Hands the event to the `onEvent` listeners at once and queues it for the streams' next batch. */
  publish(record: TraceRecord, type: TraceEvent['type']): void;
  /** Returns the unsubscribe function. A function is an `onEvent` listener. */
  subscribe(subscriber: TraceSubscriber | ((event: TraceEvent) => void), options?: SubscribeOptions): () => void;
  listenerCount(): number;
  /** Delivers what is queued now (and what a sliced flush has still to write), without waiting for the flush timer. */
  flush(): void;
  /** Delivers what is queued, then ends every subscription (their `onClose` runs) and refuses new ones: the server is stopping. */
  closeAll(): void;
}

/** A filter: which tool, which trace (progress included) a subscription hears of. */
interface Filter {
  tool: string | null;
  trace: string | null;
}

/** The batched subscriptions sharing one filter: they get the same array of each batch. */
interface FilterGroup extends Filter {
  members: Set<TraceSubscriber>;
}

/**
 * An in-process pub/sub for trace changes. Streams get events in batches, so that an event costs
 * one write per batch rather than one per stream; in-process listeners get each event at once.
 * 1. `publish` hands the event to the `onEvent` listeners it passes, queues it for the `onEvents`
 *    ones and, if no flush is due, schedules one `flushMs` after the last (at once after a quiet spell).
 * 2. A flush drops what the batch makes redundant (see `withoutSuperseded`), then per distinct
 *    filter selects the batch's events once and hands that one array to each of its subscribers.
 * 3. A timed flush with `streamsPerTurn` queues those deliveries in one FIFO and hands out a slice
 *    per turn, so each subscriber still gets its batches in order, and none after it unsubscribed.
 * @example const events = createTraceEvents({ clock: createManualClock() });
 */
export function createTraceEvents(options: TraceEventsOptions = {}): TraceEvents {
  const clock = options.clock ?? systemClock;
  const flushMs = options.flushMs ?? FLUSH_INTERVAL_MS;
  const groups = new Map<string, FilterGroup>();
  const listeners = new Map<TraceSubscriber, Filter>();
  // Every batched subscriber still subscribed: a queued delivery to one that left is skipped.
  const active = new Set<TraceSubscriber>();
  // Progress is only published for a trace someone follows.
  const followed = new Map<string, number>();
  let batched = 0;
  let queue: TraceEvent[] = [];
  let timer: TimerHandle | null = null;
  let lastFlush = Number.NEGATIVE_INFINITY;
  let closed = false;
  const perTurn = options.streamsPerTurn ?? Number.POSITIVE_INFINITY;
  const defer = options.defer ?? ((run: () => void) => setImmediate(run));
  // Deliveries of timed flushes not yet written, oldest first: subscriber, batch, subscriber, batch…
  const deliveries: (TraceSubscriber | readonly TraceEvent[])[] = [];
  let delivered = 0;
  let drainScheduled = false;

  /** Writes up to `limit` queued deliveries, skipping subscribers that have left since. */
  const deliver = (limit: number) => {
    for (let n = 0; n < limit && delivered < deliveries.length; n++) {
      const subscriber = deliveries[delivered++] as TraceSubscriber;
      const selected = deliveries[delivered++] as readonly TraceEvent[];
      if (active.has(subscriber)) guarded(() => subscriber.onEvents?.(selected), 'trace event listener');
    }
    if (delivered === deliveries.length) {
      deliveries.length = 0;
      delivered = 0;
    }
  };
  const drain = () => {
    drainScheduled = false;
    deliver(perTurn);
    if (deliveries.length > 0) scheduleDrain();
  };
  const scheduleDrain = () => {
    if (drainScheduled) return;
    drainScheduled = true;
    defer(drain);
  };

  const flush = (timed = false) => {
    if (timer !== null) clock.clearTimeout(timer);
    timer = null;
    lastFlush = clock.now();
    if (queue.length > 0) {
      const batch = withoutSuperseded(queue);
      queue = [];
      for (const group of groups.values()) {
        const selected = select(batch, group);
        if (selected.length === 0) continue;
        for (const subscriber of group.members) deliveries.push(subscriber, selected);
      }
    }
    if (timed) drain();
    else deliver(Number.POSITIVE_INFINITY);
  };
  const timedFlush = () => flush(true);

  const add = (subscriber: TraceSubscriber, filter: Filter): (() => void) => {
    if (filter.trace) followed.set(filter.trace, (followed.get(filter.trace) ?? 0) + 1);
    const removeFromFilter = subscriber.onEvents ? addToGroup(subscriber, filter) : addListener(subscriber, filter);
    let subscribed = true;
    return () => {
      if (!subscribed || closed) return;
      subscribed = false;
      removeFromFilter();
      if (!filter.trace) return;
      const left = (followed.get(filter.trace) ?? 1) - 1;
      if (left > 0) followed.set(filter.trace, left);
      else followed.delete(filter.trace);
    };
  };
  const addToGroup = (subscriber: TraceSubscriber, filter: Filter) => {
    const key = JSON.stringify([filter.tool, filter.trace]);
    let group = groups.get(key);
    if (!group) {
      group = { ...filter, members: new Set() };
      groups.set(key, group);
    }
    const members = group.members;
    members.add(subscriber);
    active.add(subscriber);
    batched++;
    return () => {
      members.delete(subscriber);
      active.delete(subscriber);
      batched--;
      if (members.size === 0) groups.delete(key);
      if (batched === 0) queue = [];
    };
  };
  const addListener = (subscriber: TraceSubscriber, filter: Filter) => {
    listeners.set(subscriber, filter);
    return () => listeners.delete(subscriber);
  };

  return {
    publish(record, type) {
      if (batched + listeners.size === 0) return;
      if (type === 'progress' && !followed.has(record.id)) return;
      const event: TraceEvent = {
        type,
        id: record.id,
        tool: record.tool,
        status: record.status,
        sessionId: record.sessionId,
        at: clock.epochMs(),
      };
      for (const [listener, filter] of listeners) {
        if (passes(event, filter)) guarded(() => listener.onEvent?.(event), 'trace event listener');
      }
      if (batched === 0) return;
      queue.push(event);
      if (timer === null) timer = clock.setTimeout(timedFlush, Math.max(0, lastFlush + flushMs - clock.now()));
    },
    subscribe(subscriber, subscribeOptions = {}) {
      const resolved: TraceSubscriber = typeof subscriber === 'function' ? { onEvent: subscriber } : subscriber;
      if (closed) {
        resolved.onClose?.();
        return () => {};
      }
      return add(resolved, { tool: subscribeOptions.tool || null, trace: subscribeOptions.trace || null });
    },
    listenerCount: () => batched + listeners.size,
    flush: () => flush(),
    closeAll() {
      if (closed) return;
      flush();
      closed = true;
      const all = [...[...groups.values()].flatMap((group) => [...group.members]), ...listeners.keys()];
      groups.clear();
      active.clear();
      listeners.clear();
      followed.clear();
      batched = 0;
      for (const subscriber of all) guarded(() => subscriber.onClose?.(), 'closing an event stream');
    },
  };
}

/** One subscriber's failure is logged; the others still hear of the event. */
function guarded(run: () => void, what: string) {
  try {
    run();
  } catch (error) {
    console.error(`[toolscope] ${what} failed:`, error);
  }
}

/** Following a trace: only its events, progress included; otherwise no progress. */
function passes(event: TraceEvent, { tool, trace }: Filter): boolean {
  return (trace ? event.id === trace : event.type !== 'progress') && (!tool || event.tool === tool);
}

/** The events a filter lets through; the batch itself when that is all of it. */
function select(batch: TraceEvent[], filter: Filter): readonly TraceEvent[] {
  const through = (event: TraceEvent) => passes(event, filter);
  return batch.every(through) ? batch : batch.filter(through);
}

/**
 * The batch without the events a later one of the same call makes redundant: an `update` or a
 * `progress` followed by another event of its call. Clients only refetch on those, and the later
 * event arrives in the same write. A `begin` is always kept (the paused list counts new calls by
 * it) and so is every `finish`.
 */
export function withoutSuperseded(events: TraceEvent[]): TraceEvent[] {
  if (!events.some((event) => event.type === 'update' || event.type === 'progress')) return events;
  const later = new Set<string>();
  const kept: TraceEvent[] = [];
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    const redundant = (event.type === 'update' || event.type === 'progress') && later.has(event.id);
    if (!redundant) kept.push(event);
    later.add(event.id);
  }
  return kept.reverse();
}
