import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { LiveTraceView } from '@/components/trace/live-trace-view';
import { traceJson } from '@/lib/api/serialize';
import { getToolscope } from '@/lib/server/toolscope';
import type { TraceJson } from '@/lib/ui/trace-from-json';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ id: string }> };

/** A running call's live snapshot from the executor, else the recorded trace. */
function loadTrace(id: string) {
  if (id.length > 256) return null;
  const { executor, store } = getToolscope();
  return executor.inFlight(id) ?? store.get(id);
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const trace = loadTrace((await params).id);
  return { title: trace ? `${trace.tool} ${trace.status}` : 'Trace not found' };
}

/**
 * One call, stage by stage. Rendered from the snapshot taken now (the API's JSON, so the sealed
 * raw arguments never reach the client), then kept live in the browser while the call runs.
 */
export default async function TracePage({ params }: Props) {
  const trace = loadTrace((await params).id);
  if (!trace) notFound();
  const { executor, store } = getToolscope();
  const initial: TraceJson = {
    ...traceJson(trace),
    replays: store.replays(trace.id),
    server_time: new Date().toISOString(),
  };
  return (
    <LiveTraceView
      key={trace.id}
      initial={initial}
      toolKnown={executor.registry.get(trace.tool) !== undefined}
      neighbours={store.adjacent(trace.id)}
    />
  );
}
