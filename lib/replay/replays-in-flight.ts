import type { Executor } from '../executor/executor';

/** A replay still running or awaiting approval, as the original trace lists it. */
export interface ReplayInFlight {
  id: string;
  status: 'running' | 'awaiting_approval';
}

/**
 * Which of a call's replays (`replays`, as the store lists them) are in flight now, and how: the
 * executor holds each until it is recorded finished, also one resumed after a restart.
 */
export function replaysInFlight(executor: Pick<Executor, 'inFlight'>, replays: readonly string[]): ReplayInFlight[] {
  return replays.flatMap((id) => {
    const status = executor.inFlight(id)?.status;
    return status === 'running' || status === 'awaiting_approval' ? [{ id, status }] : [];
  });
}
