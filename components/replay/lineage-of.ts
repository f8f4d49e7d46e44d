import type { TraceJson } from '@/lib/ui/trace-from-json';
import type { Lineage } from './lineage';

/** The lineage fields of the trace JSON (`served_from` is read defensively: older servers lack it). */
export function lineageOf(json: TraceJson): Lineage {
  const extra = json as TraceJson & { served_from?: string | null };
  return { replayOf: json.replay_of, replays: json.replays ?? [], servedFrom: extra.served_from ?? null };
}
