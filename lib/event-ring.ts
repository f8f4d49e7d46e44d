/**
 * Event ids and the ring of recent batches that a reconnecting stream resumes from.
 *
 * Ids are decimal integers from a hybrid clock, `max(last + 2, epoch_ms * 1000)`: strictly
 * increasing, also across restarts (a restart starts from the wall clock), and an id says when
 * (`floor(id / 1000)` is about its epoch ms). Live ids are even; the ids of events replayed from
 * the database are odd, so a resume from one is known to be from a replay (see `events.ts`).
 */

/** An event as the ring keeps it: only its id matters here. */
export interface Identified {
  id: number;
}

export interface EventRing<E extends Identified> {
  /** The last live id given out (even); `floor` when none was. */
  readonly last: number;
  /**
   * Every live id above this one is in the ring: a client that has seen `floor` or a later live
   * id misses nothing the ring cannot give it.
   */
  readonly floor: number;
  /** Gives each event of the batch its id, in order, and keeps the batch. */
  stamp(batch: E[], epochMs: number): void;
  /** True when the ring holds every live event after `id` (an even id this process gave out, or the floor). */
  covers(id: number): boolean;
  /** The kept events after `id`, in order: only meaningful when `covers(id)`. */
  after(id: number): E[];
  /** Ids from here on are above `id`: after a replay handed out ids up to it, or a client came from the future. */
  observe(id: number): void;
  /**
   * Events went by without ids (nobody listened for a long time): burns an id so that no client
   * can claim to have seen what came before, and empties the ring.
   */
  gap(epochMs: number): void;
}

/** How many events the ring keeps (whole batches: the newest batch stays even when larger). */
export const RING_EVENTS = 10_000;

/** The next even id at `epochMs`, after `last`. */
export function nextLiveId(last: number, epochMs: number): number {
  return Math.max(last + 2, Math.floor(epochMs) * 1000);
}

/** The next odd id (a replayed event's) after `previous`, for an event at `epochMs`. */
export function nextReplayId(previous: number, epochMs: number): number {
  return Math.max(previous + (previous % 2 === 0 ? 1 : 2), Math.floor(epochMs) * 1000 + 1);
}

/** A ring of the newest batches, at most `capacity` events (but always the newest batch). */
export function createEventRing<E extends Identified>(startMs: number, capacity = RING_EVENTS): EventRing<E> {
  let last = Math.floor(startMs) * 1000;
  let floor = last;
  const batches: E[][] = [];
  let count = 0;
  return {
    get last() {
      return last;
    },
    get floor() {
      return floor;
    },
    stamp(batch, epochMs) {
      if (batch.length === 0) return;
      for (const event of batch) {
        last = nextLiveId(last, epochMs);
        event.id = last;
      }
      batches.push(batch);
      count += batch.length;
      while (count > capacity && batches.length > 1) {
        const evicted = batches.shift() as E[];
        count -= evicted.length;
        floor = (evicted[evicted.length - 1] as E).id;
      }
    },
    covers: (id) => id % 2 === 0 && id >= floor && id <= last,
    after(id) {
      const out: E[] = [];
      // Newest batches first until one starts at or below `id`: a resume is usually recent.
      let start = batches.length;
      while (start > 0 && ((batches[start - 1] as E[])[0] as E).id > id) start--;
      if (start > 0) for (const event of batches[start - 1] as E[]) if (event.id > id) out.push(event);
      for (let i = start; i < batches.length; i++) for (const event of batches[i] as E[]) out.push(event);
      return out;
    },
    observe(id) {
      if (id > last) last = id % 2 === 0 ? id : id + 1;
    },
    gap(epochMs) {
      last = nextLiveId(last, epochMs);
      floor = last;
      batches.length = 0;
      count = 0;
    },
  };
}
