import type { ConnectionTimers, EventSourceLike } from '../event-stream-connection';
import type { ChannelLike, LocksLike, SharedStreamMessage } from '../shared-event-stream';

/**
 * Stand-ins for the browser APIs the shared event stream needs and we do not own — Web Locks,
 * BroadcastChannel, EventSource, timers — for several tabs of one browser. Messages and lock
 * grants arrive asynchronously, as in a browser: `settle()` lets them.
 */

/** Lets queued messages, lock grants and promise callbacks run. */
export const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

export class FakeSource implements EventSourceLike {
  onopen: ((event: Event) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  closed = false;
  private listeners = new Map<string, ((event: MessageEvent<string>) => void)[]>();
  constructor(readonly url: string) {}
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close() {
    this.closed = true;
  }
  open() {
    this.onopen?.(new Event('open'));
  }
  emit(type: string, data: unknown, lastEventId = '') {
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    for (const listener of this.listeners.get(type) ?? [])
      listener({ data: text, lastEventId } as MessageEvent<string>);
  }
  fail() {
    this.onerror?.(new Event('error'));
  }
}

/** Timers one test drives for every tab: `advance(ms)` runs what falls due, in order. */
export function manualTimers(): ConnectionTimers & { advance(ms: number): void; pending(): number } {
  let now = 1_000_000;
  let nextId = 1;
  const queue = new Map<number, { at: number; callback: () => void }>();
  return {
    now: () => now,
    setTimeout(callback, ms) {
      const id = nextId++;
      queue.set(id, { at: now + ms, callback });
      return id;
    },
    clearTimeout(handle) {
      queue.delete(handle as number);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...queue.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        queue.delete(due[0]);
        now = due[1].at;
        due[1].callback();
      }
      now = until;
    },
    pending: () => queue.size,
  };
}

interface LockRequest {
  tab: number;
  callback: () => Promise<void> | void;
  settled: (error?: unknown) => void;
  held: boolean;
}

interface FakeChannel extends ChannelLike {
  tab: number;
  closed: boolean;
}

/** One browser: a lock manager and a channel hub shared by its tabs, and every EventSource opened. */
export function fakeBrowser() {
  const queues = new Map<string, LockRequest[]>();
  const channels: FakeChannel[] = [];
  const sources: FakeSource[] = [];
  const timers = manualTimers();
  let tabs = 0;

  const grant = (name: string) => {
    const queue = queues.get(name) ?? [];
    const head = queue[0];
    if (!head || head.held) return;
    head.held = true;
    queueMicrotask(() => {
      Promise.resolve(head.callback()).then(
        () => release(name, head),
        () => release(name, head),
      );
    });
  };
  const release = (name: string, request: LockRequest) => {
    const queue = queues.get(name) ?? [];
    const at = queue.indexOf(request);
    if (at < 0) return;
    queue.splice(at, 1);
    request.settled();
    grant(name);
  };

  return {
    timers,
    sources,
    /** The streams open now, across the tabs. */
    openSources: () => sources.filter((source) => !source.closed),
    /** A new tab's locks, channel and `open`. */
    tab() {
      const tab = tabs++;
      const locks: LocksLike = {
        request(name, { signal }, callback) {
          return new Promise((resolve, reject) => {
            const request: LockRequest = {
              tab,
              callback,
              held: false,
              settled: (error) => (error ? reject(error) : resolve(undefined)),
            };
            const queue = queues.get(name) ?? [];
            queues.set(name, queue);
            queue.push(request);
            signal.addEventListener('abort', () => {
              if (request.held) return;
              queue.splice(queue.indexOf(request), 1);
              request.settled(new DOMException('aborted', 'AbortError'));
            });
            grant(name);
          });
        },
      };
      const channel: FakeChannel = {
        tab,
        closed: false,
        onmessage: null,
        postMessage(message: SharedStreamMessage) {
          if (channel.closed) return;
          const copy = structuredClone(message);
          for (const other of channels) {
            if (other === channel) continue;
            setTimeout(() => {
              if (!other.closed) other.onmessage?.({ data: copy } as MessageEvent<SharedStreamMessage>);
            }, 0);
          }
        },
      };
      channels.push(channel);
      const own: FakeSource[] = [];
      return {
        locks,
        channel,
        open: (url: string) => {
          const source = new FakeSource(url);
          sources.push(source);
          own.push(source);
          return source;
        },
        /** The tab closes: its channel goes silent, its locks are let go, its streams close. */
        close() {
          channel.closed = true;
          for (const source of own) source.close();
          for (const [name, queue] of queues) {
            for (const request of [...queue].filter((r) => r.tab === tab)) release(name, request);
          }
        },
      };
    },
  };
}
