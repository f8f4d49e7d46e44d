import type { TraceJson } from '@/lib/ui/trace-from-json';
import type { Lineage } from './lineage';

/** The lineage fields of the trace JSON. */
export function lineageOf(json: TraceJson): Lineage {
  return {
    replayOf: json.replay_of,
    replays: json.replays ?? [],
    inFlight: json.replays_in_flight ?? [],
    servedFrom: json.served_from ?? null,
  };
}
