import { goToLogin, probeServer } from './server-reach';
import {
  createSharedEventStream,
  type LocksLike,
  SHARED_STREAM_NAME,
  type SharedEventStream,
} from './shared-event-stream';

let shared: SharedEventStream | null = null;

/**
 * This tab's part of the browser's one event stream (`createSharedEventStream`), made on first use
 * with the browser's Web Locks, BroadcastChannel and EventSource; where the first two are missing
 * (a page not served securely, an old browser) the page holds one stream of its own. Coming back
 * online skips the reconnect wait. Browser only.
 */
export function browserEventStream(): SharedEventStream {
  if (shared) return shared;
  const locks = (navigator as Navigator & { locks?: LocksLike }).locks ?? null;
  const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(SHARED_STREAM_NAME) : null;
  const stream = createSharedEventStream({
    locks,
    channel,
    open: (url) => new EventSource(url),
    probe: () => probeServer(),
    onUnauthenticated: goToLogin,
  });
  window.addEventListener('online', () => stream.retryNow());
  shared = stream;
  return stream;
}
