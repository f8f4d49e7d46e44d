import { HEARTBEAT_INTERVAL_MS, type TraceEvent } from '../events';

/** `connecting` before the first open; `disconnected` from a drop until a reconnect succeeds. */
export type ConnectionState = 'connecting' | 'live' | 'disconnected';

export interface ConnectionStatus {
  state: ConnectionState;
  /** Epoch ms of the next reconnect try while one is scheduled, else null (trying now, or live). */
  retryAt: number | null;
}

/** `data` of `event: tools`: whose tools changed (an MCP server's name; null: not a server's). */
export interface ToolsChangedEvent {
  type: 'changed';
  server: string | null;
  at: number;
}

/** The part of the browser's EventSource this module uses; tests hand in a fake. */
export interface EventSourceLike {
  onopen: ((event: Event) => void) | null;
  onerror: ((event: Event) => void) | null;
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void;
  close(): void;
}

/** Timers and time, injected so that tests drive them (TanStack Query's TimeoutProvider idea). */
export interface ConnectionTimers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface EventStreamOptions {
  url: string;
  open(url: string): EventSourceLike;
  onEvent(event: TraceEvent): void;
  onStatus(status: ConnectionStatus): void;
  /**
   * A connection opened after an earlier one was lost or failed, or the server said too much was
   * missed (`event: reset`): catch up on what was missed. (A reconnect resumes from the last
   * event id, so the server replays what it can; this is the belt to those braces.)
   */
  onReconnect?(): void;
  /**
   * `event: tools`: the registered tools changed (an MCP server connected, went down, changed its
   * list); only unfiltered streams get it.
   */
  onTools?(event: ToolsChangedEvent): void;
  /**
   * Start after this event id (another tab's stream, taken over): the server replays what came
   * since, and the first open counts as a reconnect (`onReconnect`).
   */
  lastEventId?: string | null;
  /** The last event id heard changed (events and pings carry it). */
  onEventId?(id: string): void;
  /**
   * Asked before each reconnect try (an EventSource cannot see an answer's status): `unreachable`
   * counts as a failed try without opening a stream; `unauthenticated` stops the tries (until
   * `retryNow`) and calls `onUnauthenticated`; `ok` opens the stream. Without it, tries open at once.
   */
  probe?(): Promise<ServerReach>;
  onUnauthenticated?(): void;
  heartbeatMs?: number;
  timers?: ConnectionTimers;
  /** [0, 1), for jitter. */
  random?: () => number;
}

/** What a probe of the server found: it answers, it wants a login (401), or it does not answer. */
export type ServerReach = 'ok' | 'unauthenticated' | 'unreachable';

export const RECONNECT_BASE_MS = 1_000;
/**
 * A browser holds one stream for all its tabs, so a short cap costs the server little, and a page
 * is live again within 3 s of the server coming back (the traces list polls as often when down).
 */
export const RECONNECT_MAX_MS = 3_000;
/** Silence (no event, no ping) longer than this many heartbeats counts as a dropped stream. */
export const MISSED_HEARTBEATS = 2.5;

/**
 * The wait before reconnect try `attempt` (1-based): 1 s, 2 s, then 3 s (the cap), then
 * "equal jitter" (between half and all of it) so that many tabs do not reconnect in lockstep.
 */
export function reconnectDelay(attempt: number, random: number): number {
  const capped = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(capped / 2 + (capped / 2) * random);
}

/** `url` with `last_event_id` set (replacing one already there). */
export function withLastEventId(url: string, id: string): string {
  const [path, query = ''] = url.split('?', 2) as [string, string?];
  const params = new URLSearchParams(query);
  params.set('last_event_id', id);
  return `${path}?${params.toString()}`;
}

const realTimers: ConnectionTimers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Keeps an event stream open, and says honestly whether it is.
 * 1. Opens the stream; `open` makes it `live`.
 * 2. Every message (trace events and the server's pings) re-arms a watchdog; silence for
 *    MISSED_HEARTBEATS heartbeats, or an error, is a drop: the stream is closed (the browser's own
 *    silent retry is not used) and the state is `disconnected` with the time of the next try.
 * 3. Tries again after `reconnectDelay`, growing with each failed try, resuming after the last
 *    event id seen (`?last_event_id=`: a new EventSource cannot send `Last-Event-ID`); with a
 *    `probe`, a try first asks whether the server answers, and a 401 ends the tries. A try that
 *    opens resets the delay and calls `onReconnect`, and so does an `event: reset`.
 * Returns `close()` (stops everything), `retryNow()` (skips the wait) and `lastEventId()`.
 */
export function connectEventStream(options: EventStreamOptions) {
  const timers = options.timers ?? realTimers;
  const random = options.random ?? Math.random;
  const silenceMs = (options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS) * MISSED_HEARTBEATS;
  let source: EventSourceLike | null = null;
  let watchdog: unknown = null;
  let retry: unknown = null;
  let failures = 0;
  let lastEventId: string | null = options.lastEventId ?? null;
  // Taking over another tab's stream: what it missed meanwhile is caught up like after a drop.
  let lostOne = lastEventId !== null;
  let closed = false;
  // Stopped by a 401 until `retryNow`.
  let halted = false;
  // Counts probes, so that an answer to one made before `close` or `retryNow` is ignored.
  let probes = 0;
  let status: ConnectionStatus = { state: 'connecting', retryAt: null };

  const setStatus = (next: ConnectionStatus) => {
    if (next.state === status.state && next.retryAt === status.retryAt) return;
    status = next;
    options.onStatus(status);
  };
  const clearWatchdog = () => {
    if (watchdog !== null) timers.clearTimeout(watchdog);
    watchdog = null;
  };
  const armWatchdog = () => {
    clearWatchdog();
    watchdog = timers.setTimeout(drop, silenceMs);
  };

  function drop() {
    if (closed) return;
    clearWatchdog();
    source?.close();
    source = null;
    lostOne = true;
    failures += 1;
    const delay = reconnectDelay(failures, random());
    setStatus({ state: 'disconnected', retryAt: timers.now() + delay });
    retry = timers.setTimeout(reconnect, delay);
  }

  /** A try after a drop: asks the probe first when there is one. */
  function reconnect() {
    retry = null;
    const probe = options.probe;
    if (closed || !probe) return connect();
    setStatus({ state: 'disconnected', retryAt: null });
    const asked = ++probes;
    const answered = (reach: ServerReach) => {
      if (closed || asked !== probes) return;
      if (reach === 'ok') return connect();
      if (reach === 'unreachable') return drop();
      halted = true;
      options.onUnauthenticated?.();
    };
    probe().then(answered, () => answered('unreachable'));
  }

  function connect() {
    if (closed) return;
    retry = null;
    if (status.retryAt !== null) setStatus({ ...status, retryAt: null });
    const current = options.open(lastEventId === null ? options.url : withLastEventId(options.url, lastEventId));
    source = current;
    const alive = () => {
      if (source === current) armWatchdog();
    };
    current.onopen = () => {
      if (source !== current) return;
      alive();
      failures = 0;
      setStatus({ state: 'live', retryAt: null });
      if (lostOne) {
        lostOne = false;
        options.onReconnect?.();
      }
    };
    current.onerror = () => {
      if (source === current) drop();
    };
    // Every event carries an id; a ping carries the last one seen too.
    const heard = (message: MessageEvent<string>) => {
      if (source !== current) return false;
      alive();
      if (message.lastEventId && message.lastEventId !== lastEventId) {
        lastEventId = message.lastEventId;
        options.onEventId?.(lastEventId);
      }
      return true;
    };
    current.addEventListener('ping', heard);
    current.addEventListener('approval', heard);
    current.addEventListener('fault_rule', heard);
    current.addEventListener('tools', (message) => {
      if (!heard(message) || !options.onTools) return;
      try {
        options.onTools(JSON.parse(message.data) as ToolsChangedEvent);
      } catch {
        // a malformed event is ignored, as for trace events
      }
    });
    current.addEventListener('reset', (message) => {
      if (heard(message)) options.onReconnect?.();
    });
    current.addEventListener('trace', (message) => {
      if (!heard(message)) return;
      let event: TraceEvent;
      try {
        event = JSON.parse(message.data) as TraceEvent;
      } catch {
        return; // a malformed event is ignored; the next one refreshes anyway
      }
      options.onEvent(event);
    });
    armWatchdog();
  }

  connect();
  return {
    status: () => status,
    lastEventId: () => lastEventId,
    retryNow() {
      if (closed || (retry === null && !halted)) return;
      if (retry !== null) timers.clearTimeout(retry);
      halted = false;
      probes++;
      reconnect();
    },
    close() {
      closed = true;
      probes++;
      clearWatchdog();
      if (retry !== null) timers.clearTimeout(retry);
      source?.close();
      source = null;
    },
  };
}
