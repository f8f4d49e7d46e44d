import type { CallStatus, TraceRecord } from './executor/types';

/** How often an event stream says it is alive; clients treat ~2.5 missed beats as a drop. */
export const HEARTBEAT_INTERVAL_MS = 5_000;

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

export interface TraceSubscriber {
  onEvent(event: TraceEvent): void;
  /** The bus is shutting down: end the stream. Called once, also for subscriptions made after `closeAll`. */
  onClose?(): void;
}

export interface SubscribeOptions {
  /**
   * Follow one trace: its `progress` events are delivered too. Other subscribers never get
   * progress events, so that many open list tabs are not flooded by one chatty call.
   */
  trace?: string;
}

export interface TraceEvents {
  publish(record: TraceRecord, type: TraceEvent['type']): void;
  /** Returns the unsubscribe function. */
  subscribe(subscriber: TraceSubscriber | TraceSubscriber['onEvent'], options?: SubscribeOptions): () => void;
  listenerCount(): number;
  /** Ends every subscription (their `onClose` runs) and refuses new ones: the server is stopping. */
  closeAll(): void;
}

interface Subscription extends TraceSubscriber {
  trace?: string;
}

/** An in-process pub/sub for trace changes; the SSE endpoint is its only subscriber kind. */
export function createTraceEvents(): TraceEvents {
  const subscriptions = new Set<Subscription>();
  let closed = false;

  const deliver = (subscription: Subscription, event: TraceEvent) => {
    try {
      subscription.onEvent(event);
    } catch (error) {
      console.error('[toolscope] trace event listener failed:', error);
    }
  };

  return {
    publish(record, type) {
      if (subscriptions.size === 0) return;
      const event: TraceEvent = {
        type,
        id: record.id,
        tool: record.tool,
        status: record.status,
        sessionId: record.sessionId,
        at: Date.now(),
      };
      for (const subscription of subscriptions) {
        if (type === 'progress' && subscription.trace !== record.id) continue;
        deliver(subscription, event);
      }
    },
    subscribe(subscriber, options = {}) {
      const subscription: Subscription =
        typeof subscriber === 'function'
          ? { onEvent: subscriber, trace: options.trace }
          : { ...subscriber, ...options };
      if (closed) {
        subscription.onClose?.();
        return () => {};
      }
      subscriptions.add(subscription);
      return () => subscriptions.delete(subscription);
    },
    listenerCount: () => subscriptions.size,
    closeAll() {
      closed = true;
      const all = [...subscriptions];
      subscriptions.clear();
      for (const subscription of all) {
        try {
          subscription.onClose?.();
        } catch (error) {
          console.error('[toolscope] closing an event stream failed:', error);
        }
      }
    },
  };
}
