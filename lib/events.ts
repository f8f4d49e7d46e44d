import type { CallStatus, TraceRecord } from './executor/types';

/** What the live views hear about: a call started, changed status, or finished. */
export interface TraceEvent {
  type: 'begin' | 'update' | 'finish';
  id: string;
  tool: string;
  status: CallStatus;
  sessionId: string | null;
  at: number;
}

type Listener = (event: TraceEvent) => void;

export interface TraceEvents {
  publish(record: TraceRecord, type: TraceEvent['type']): void;
  /** Returns the unsubscribe function. */
  subscribe(listener: Listener): () => void;
  listenerCount(): number;
}

/** An in-process pub/sub for trace changes; the SSE endpoint is its only subscriber kind. */
export function createTraceEvents(): TraceEvents {
  const listeners = new Set<Listener>();
  return {
    publish(record, type) {
      if (listeners.size === 0) return;
      const event: TraceEvent = {
        type,
        id: record.id,
        tool: record.tool,
        status: record.status,
        sessionId: record.sessionId,
        at: Date.now(),
      };
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          console.error('[toolscope] trace event listener failed:', error);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    listenerCount: () => listeners.size,
  };
}
