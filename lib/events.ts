import { createEventRing, nextReplayId, RING_EVENTS } from './event-ring';
import { type Clock, systemClock, type TimerHandle } from './executor/clock';
import type { ApprovalRecord, CallStatus, StageName, TraceRecord } from './executor/types';

/** How often an event stream says it is alive; clients treat ~2.5 missed beats as a drop. */
export const HEARTBEAT_INTERVAL_MS = 5_000;

/**
 * The least time between two deliveries. Under load, the events of this long go out as one batch
 * (one write per open stream instead of one per event); an event after a quiet spell goes out at
 * once. Every live view throttles its refetch to 250 ms, so batches as far apart are not seen. A
 * flush to 200 streams costs a write syscall to each, whatever the batch's size, taken from the
 * event loop that answers the agents: with 200 streams and every feature on, 250 ms instead of
 * 100 ms gave 6% less of the loop per call and 7% more calls/s (alternated A/B, 3 pairs).
 */
export const FLUSH_INTERVAL_MS = 250;

/** A resume that would replay more events than this gets `event: reset` instead (refetch). */
export const REPLAY_LIMIT = 10_000;

/**
 * A resume from the database starts this long before the time its id says: a call's recorded
 * time (start, finish, decision) comes before its event is stamped, by the commit and the flush.
 * Events of that margin may come twice (with new ids); none is lost.
 */
export const RESUME_MARGIN_MS = 2_000;

/**
 * With no stream open for this long, events are no longer stamped and kept (nothing per call is
 * spent on a server nobody watches); the next stream resumes from the database. Before the first
 * stream opens, nothing is kept either.
 */
export const RING_IDLE_MS = 5 * 60_000;

/** `event: trace`: a call was created (`begin`), changed, entered a stage, ended an attempt, finished. */
export interface TraceEvent {
  type: 'begin' | 'update' | 'stage' | 'attempt' | 'finish' | 'progress';
  trace_id: string;
  tool: string;
  status: CallStatus;
  session_id: string | null;
  /** Epoch ms. */
  at: number;
  /** The stage the call entered (`stage`). */
  stage?: StageName;
  /** The attempt that ended (`attempt`). */
  attempt?: number;
}

/** `event: approval`: a call started waiting for a person, or its wait was decided. */
export interface ApprovalEvent {
  type: 'requested' | 'decided';
  trace_id: string;
  tool: string;
  session_id: string | null;
  /** For `decided`. */
  decision?: Exclude<ApprovalRecord['decision'], null>;
  at: number;
}

/** `event: fault_rule`: the fault rules changed (`reset`: all deleted; `rule_id` null). */
export interface FaultRuleEvent {
  type: 'created' | 'updated' | 'deleted' | 'reset';
  rule_id: string | null;
  at: number;
}

/**
 * `event: tools`: the registered tools changed (an MCP server connected, went down, changed its
 * list): `server` names the MCP server, null for a change of no server's tools.
 */
export interface ToolsEvent {
  type: 'changed';
  server: string | null;
  at: number;
}

/**
 * What an event says: its `event:` name and its `data:`. A call's events also carry the id of the
 * principal who made it (never written to the stream): streams that may see only their own calls
 * (an agent's) are filtered by it.
 */
export type EventBody =
  | { kind: 'trace'; data: TraceEvent; principal?: string | null }
  | { kind: 'approval'; data: ApprovalEvent; principal?: string | null }
  | { kind: 'fault_rule'; data: FaultRuleEvent }
  | { kind: 'tools'; data: ToolsEvent };

/** One event on the stream: its `id:`, its `event:` name and its `data:`. */
export type StreamEvent = EventBody & { id: number };

/** An event read back from the database for a resume: calls begun and finished, approvals requested and decided. */
export type HistoryEvent = Extract<EventBody, { kind: 'trace' | 'approval' }>;

/** Where a resume that the ring cannot serve reads what was missed. */
export interface EventHistory {
  /**
   * The events at or after `sinceMs` passing `filter`, in time order; null when there are more
   * than `limit` (or reading them would take too long).
   */
  since(sinceMs: number, filter: Filter, limit: number): HistoryEvent[] | null;
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
  onEvents?(events: readonly StreamEvent[]): void;
  /** A resume missed too much to replay: the client must refetch; `id` is where it stands now. */
  onReset?(id: number): void;
  /**
   * A subscription without a `lastEventId`: `id` is where it starts (the last id given out), so a
   * client that drops before its first event resumes from here and misses nothing.
   */
  onStart?(id: number): void;
  /** Each event that passes the filter, at once (its id is not given yet: 0). */
  onEvent?(event: StreamEvent): void;
  /** The bus is shutting down: end the stream. Called once, also for subscriptions made after `closeAll`. */
  onClose?(): void;
}

export interface SubscribeOptions {
  /** Only this tool's events. */
  tool?: string | null;
  /** Only this session's events. */
  session?: string | null;
  /**
   * Follow one trace: only its events, and its `progress` events too. Other subscribers get no
   * progress events (unless they ask for all, below), so that lists are not flooded by one chatty call.
   */
  trace?: string | null;
  /**
   * `all`: the `progress` events of every call too (a browser's one shared stream, whose tabs
   * filter for themselves). Progress is then published for every call while such a stream is open.
   */
  progress?: 'all' | null;
  /** Only the calls of this principal (an agent's stream); fault rule events are then left out. */
  principal?: string | null;
  /**
   * Resume after this event id (the `Last-Event-ID`): the missed events passing the filter come
   * first (`onEvents`), or `onReset` when too many were missed. A malformed id is ignored.
   */
  lastEventId?: string | null;
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
  /** The database, for resumes the ring cannot serve; without it those get `onReset`. */
  history?: EventHistory;
  /** Events the ring keeps (default RING_EVENTS). */
  ringEvents?: number;
}

export interface TraceEvents {
  /**
   * Hands the event to the `onEvent` listeners at once and queues it for the streams' next batch.
   * `stage` and `attempt` events name theirs in `step`.
   */
  publish(record: TraceRecord, type: TraceEvent['type'], step?: { stage?: StageName; attempt?: number }): void;
  /** A call started waiting for approval, or its wait ended with `decision`. */
  publishApproval(record: TraceRecord, type: ApprovalEvent['type']): void;
  /** A fault rule was created, updated or deleted, or all were (`reset`, `ruleId` null). */
  publishFaultRule(type: FaultRuleEvent['type'], ruleId: string | null): void;
  /** The tools changed: `server`'s (an MCP server), or null for others. */
  publishTools(server: string | null): void;
  /** Returns the unsubscribe function. A function is an `onEvent` listener. */
  subscribe(subscriber: TraceSubscriber | ((event: StreamEvent) => void), options?: SubscribeOptions): () => void;
  listenerCount(): number;
  /** Delivers what is queued now (and what a sliced flush has still to write), without waiting for the flush timer. */
  flush(): void;
  /** Delivers what is queued, then ends every subscription (their `onClose` runs) and refuses new ones: the server is stopping. */
  closeAll(): void;
}

/** A filter: which tool, session, trace (progress included) a subscription hears of. */
export interface Filter {
  tool: string | null;
  session: string | null;
  trace: string | null;
  principal: string | null;
  /** The progress events of every call (`progress=all`); absent: of the followed trace only. */
  progress?: boolean;
}

/** The batched subscriptions sharing one filter: they get the same array of each batch. */
interface FilterGroup extends Filter {
  members: Set<TraceSubscriber>;
}

/**
 * An in-process pub/sub for trace changes. Streams get events in batches, so that an event costs
 * one write per batch rather than one per stream; in-process listeners get each event at once.
 * 1. `publish` hands the event to the `onEvent` listeners it passes, queues it and, if no flush is
 *    due, schedules one `flushMs` after the last (at once after a quiet spell).
 * 2. The queue drops what a later event makes redundant (see `createBatchQueue`); a flush gives each event left
 *    its id (so every id a client sees was delivered) and keeps the batch in the ring; then per
 *    distinct filter it selects the batch's events once and hands that array to each subscriber.
 * 3. A timed flush with `streamsPerTurn` queues those deliveries in one FIFO and hands out a slice
 *    per turn, so each subscriber still gets its batches in order, and none after it unsubscribed.
 * 4. A subscription with `lastEventId` first gets what it missed: from the ring when it holds
 *    every event after that id, else from `history` (the database) since the time the id says.
 * @example const events = createTraceEvents({ clock: createManualClock() });
 */
export function createTraceEvents(options: TraceEventsOptions = {}): TraceEvents {
  const clock = options.clock ?? systemClock;
  const flushMs = options.flushMs ?? FLUSH_INTERVAL_MS;
  const ring = createEventRing<StreamEvent>(clock.epochMs(), options.ringEvents ?? RING_EVENTS);
  const groups = new Map<string, FilterGroup>();
  const listeners = new Map<TraceSubscriber, Filter>();
  // Every batched subscriber still subscribed: a queued delivery to one that left is skipped.
  const active = new Set<TraceSubscriber>();
  // Progress is only published for a trace someone follows, or while a `progress=all` stream is open.
  const followed = new Map<string, number>();
  let allProgress = 0;
  let batched = 0;
  // Since when no stream is open (monotonic ms); null while one is. Before the first stream there
  // is nothing to resume from this process (a client from before a restart resumes from the
  // database), so nothing is kept: a server no one watches spends nothing per call on events.
  let idleSince: number | null = Number.NEGATIVE_INFINITY;
  let stamping = false;
  const queue = createBatchQueue();
  let timer: TimerHandle | null = null;
  let lastFlush = Number.NEGATIVE_INFINITY;
  let closed = false;
  const perTurn = options.streamsPerTurn ?? Number.POSITIVE_INFINITY;
  const defer = options.defer ?? ((run: () => void) => setImmediate(run));
  // Deliveries of timed flushes not yet written, oldest first: subscriber, batch, subscriber, batch…
  const deliveries: (TraceSubscriber | readonly StreamEvent[])[] = [];
  let delivered = 0;
  let drainScheduled = false;

  /** Writes up to `limit` queued deliveries, skipping subscribers that have left since. */
  const deliver = (limit: number) => {
    for (let n = 0; n < limit && delivered < deliveries.length; n++) {
      const subscriber = deliveries[delivered++] as TraceSubscriber;
      const selected = deliveries[delivered++] as readonly StreamEvent[];
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
      const batch = queue.take();
      ring.stamp(batch, clock.epochMs());
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

  /** Whether events are stamped and kept now: while a stream is open, and for RING_IDLE_MS after the last closed. */
  const keeping = () => {
    if (idleSince === null || clock.now() - idleSince <= RING_IDLE_MS) return true;
    stamping = false;
    return false;
  };

  const enqueue = (event: StreamEvent) => {
    for (const [listener, filter] of listeners) {
      if (passes(event, filter)) guarded(() => listener.onEvent?.(event), 'trace event listener');
    }
    if (!keeping()) return;
    queue.push(event);
    if (timer === null) timer = clock.setTimeout(timedFlush, Math.max(0, lastFlush + flushMs - clock.now()));
  };

  /** What a subscription resuming after `lastEventId` missed: events to replay, or a reset. */
  const missed = (lastEventId: string, filter: Filter): { events: StreamEvent[] } | { reset: number } | null => {
    if (!/^\d{1,16}$/.test(lastEventId)) return null;
    const after = Number(lastEventId);
    if (ring.covers(after)) {
      const events = ring.after(after).filter((event) => passes(event, filter));
      return events.length > REPLAY_LIMIT ? { reset: ring.last } : { events };
    }
    // A client from the future (another clock, a restored database): its ids stay increasing.
    ring.observe(after);
    const history = options.history;
    // Odd ids come from a replay, whose ids run up to 2 per event past the time they say.
    const slack = after % 2 === 1 ? Math.ceil((2 * REPLAY_LIMIT) / 1000) + 1 : 0;
    const found = history?.since(Math.floor(after / 1000) - RESUME_MARGIN_MS - slack, filter, REPLAY_LIMIT) ?? null;
    if (found === null) return { reset: ring.last };
    let id = after;
    const events = found.map((event) => {
      id = nextReplayId(id, event.data.at);
      return { ...event, id } as StreamEvent;
    });
    ring.observe(id);
    return { events };
  };

  const add = (subscriber: TraceSubscriber, filter: Filter, lastEventId: string | null): (() => void) => {
    if (filter.trace) followed.set(filter.trace, (followed.get(filter.trace) ?? 0) + 1);
    if (filter.progress) allProgress++;
    if (subscriber.onEvents) {
      // Joined in the same turn as the replay is read: nothing falls between the two.
      if (batched === 0) {
        idleSince = null;
        // Events went by without ids: the ring starts again after an id no client can hold.
        if (!stamping) {
          stamping = true;
          ring.gap(clock.epochMs());
        }
      }
      const replay = lastEventId === null ? null : missed(lastEventId, filter);
      if (replay === null) guarded(() => subscriber.onStart?.(ring.last), 'trace event start');
      else if ('reset' in replay) guarded(() => subscriber.onReset?.(replay.reset), 'trace event reset');
      else if (replay && replay.events.length > 0) {
        const events = replay.events;
        guarded(() => subscriber.onEvents?.(events), 'trace event replay');
      }
    }
    const removeFromFilter = subscriber.onEvents ? addToGroup(subscriber, filter) : addListener(subscriber, filter);
    let subscribed = true;
    return () => {
      if (!subscribed || closed) return;
      subscribed = false;
      removeFromFilter();
      if (filter.progress) allProgress--;
      if (!filter.trace) return;
      const left = (followed.get(filter.trace) ?? 1) - 1;
      if (left > 0) followed.set(filter.trace, left);
      else followed.delete(filter.trace);
    };
  };
  const addToGroup = (subscriber: TraceSubscriber, filter: Filter) => {
    const key = JSON.stringify([filter.tool, filter.session, filter.trace, filter.principal, filter.progress === true]);
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
      if (batched === 0) idleSince = clock.now();
    };
  };
  const addListener = (subscriber: TraceSubscriber, filter: Filter) => {
    listeners.set(subscriber, filter);
    return () => listeners.delete(subscriber);
  };

  return {
    publish(record, type, step) {
      if (type === 'progress' && allProgress === 0 && !followed.has(record.id)) return;
      if (batched === 0 && listeners.size === 0 && !keeping()) return;
      const data: TraceEvent = {
        type,
        trace_id: record.id,
        tool: record.tool,
        status: record.status,
        session_id: record.sessionId,
        at: clock.epochMs(),
      };
      if (step?.stage) data.stage = step.stage;
      if (step?.attempt !== undefined) data.attempt = step.attempt;
      enqueue({ id: 0, kind: 'trace', data, principal: record.principal?.id ?? null });
    },
    publishApproval(record, type) {
      const approval = record.approval;
      const data: ApprovalEvent = {
        type,
        trace_id: record.id,
        tool: record.tool,
        session_id: record.sessionId,
        at: (type === 'decided' ? approval?.decidedAt : approval?.requestedAt) ?? clock.epochMs(),
      };
      if (type === 'decided' && approval?.decision) data.decision = approval.decision;
      enqueue({ id: 0, kind: 'approval', data, principal: record.principal?.id ?? null });
    },
    publishFaultRule(type, ruleId) {
      enqueue({ id: 0, kind: 'fault_rule', data: { type, rule_id: ruleId, at: clock.epochMs() } });
    },
    publishTools(server) {
      enqueue({ id: 0, kind: 'tools', data: { type: 'changed', server, at: clock.epochMs() } });
    },
    subscribe(subscriber, subscribeOptions = {}) {
      const resolved: TraceSubscriber = typeof subscriber === 'function' ? { onEvent: subscriber } : subscriber;
      if (closed) {
        resolved.onClose?.();
        return () => {};
      }
      const filter: Filter = {
        tool: subscribeOptions.tool || null,
        session: subscribeOptions.session || null,
        trace: subscribeOptions.trace || null,
        principal: subscribeOptions.principal || null,
      };
      if (subscribeOptions.progress === 'all') filter.progress = true;
      return add(resolved, filter, subscribeOptions.lastEventId || null);
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
      allProgress = 0;
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

/**
 * Following a trace: only its events, progress included; otherwise no progress, unless the filter
 * asks for every call's (`progress`). Fault rule and tools events concern no call: only unfiltered
 * streams get them.
 */
export function passes(event: EventBody, filter: Filter): boolean {
  const { tool, session, trace, principal } = filter;
  if (event.kind === 'fault_rule') return !tool && !session && !trace && !principal;
  if (event.kind === 'tools') return !tool && !session && !trace;
  if (principal && event.principal !== principal) return false;
  const data = event.data;
  // `filter.progress` is read for progress events only: the others cost what they did.
  if (trace ? data.trace_id !== trace : data.type === 'progress' && !filter.progress) return false;
  return (!tool || data.tool === tool) && (!session || data.session_id === session);
}

/** The events a filter lets through; the batch itself when that is all of it. */
function select(batch: StreamEvent[], filter: Filter): readonly StreamEvent[] {
  const through = (event: StreamEvent) => passes(event, filter);
  return batch.every(through) ? batch : batch.filter(through);
}

/** Trace events a later trace event of the same call makes redundant within a batch. */
const SUPERSEDABLE = new Set<TraceEvent['type']>(['update', 'stage', 'attempt', 'progress']);

/**
 * The next batch, without the events a later one of the same call makes redundant: an `update`,
 * `stage`, `attempt` or `progress` followed by another trace event of its call — except that a
 * `progress` only makes an earlier `progress` redundant: it goes to the streams following the call
 * alone, and the others must still get the `update` before it (a list would not learn that the call
 * waits for approval). Clients only refetch on those, and the later event arrives in the same
 * write, so a fast call is `begin` + `finish` on the wire. A `begin` is always kept (the paused
 * list counts new calls by it), and so are every `finish`, approval and fault rule event. `tools` events are coalesced: the last of
 * each server in the batch stands for the others. An event is let go as soon as a later one makes
 * it redundant, not kept until the flush: a call's stages would otherwise live through the
 * garbage collector's young generation with every batch (a call publishes ~8 events, 2 stay).
 */
function createBatchQueue() {
  let queued: (StreamEvent | null)[] = [];
  let dropped = 0;
  /** Where the last queued event of each call is (`progress` apart), and the last `tools` event of each server. */
  const lastOfCall = new Map<string, number>();
  /** Where the last queued `progress` of each call is (only calls followed, or all while a `progress=all` stream is open). */
  const lastProgressOfCall = new Map<string, number>();
  const lastOfServer = new Map<string | null, number>();
  const replace = (at: number | undefined, redundant: (event: StreamEvent) => boolean) => {
    if (at === undefined) return;
    const event = queued[at];
    if (event && redundant(event)) {
      queued[at] = null;
      dropped++;
    }
  };
  const supersedable = (event: StreamEvent) => event.kind === 'trace' && SUPERSEDABLE.has(event.data.type);
  return {
    get length() {
      return queued.length;
    },
    push(event: StreamEvent): void {
      if (event.kind === 'trace') {
        const id = event.data.trace_id;
        if (event.data.type === 'progress') {
          replace(lastProgressOfCall.get(id), supersedable);
          lastProgressOfCall.set(id, queued.length);
        } else {
          replace(lastOfCall.get(id), supersedable);
          lastOfCall.set(id, queued.length);
          if (lastProgressOfCall.size > 0) {
            replace(lastProgressOfCall.get(id), supersedable);
            lastProgressOfCall.delete(id);
          }
        }
      } else if (event.kind === 'tools') {
        replace(lastOfServer.get(event.data.server), () => true);
        lastOfServer.set(event.data.server, queued.length);
      }
      queued.push(event);
    },
    /** The batch, in the order the events came; the queue starts again empty. */
    take(): StreamEvent[] {
      const batch = dropped === 0 ? (queued as StreamEvent[]) : queued.filter((event) => event !== null);
      queued = [];
      dropped = 0;
      lastOfCall.clear();
      lastProgressOfCall.clear();
      lastOfServer.clear();
      return batch;
    },
  };
}
