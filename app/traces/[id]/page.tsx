import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { LiveTraceView } from '@/components/trace/live-trace-view';
import { getToolscope } from '@/lib/server/toolscope';
import { formSchemaOf } from '@/lib/ui/tool-info';
import { loadTrace, traceSnapshot } from '../../_lib/trace-snapshot';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const trace = loadTrace((await params).id);
  return { title: trace ? `${trace.tool} ${trace.status}` : 'Trace not found' };
}

/**
 * One call, stage by stage. Rendered from the snapshot taken now (the API's JSON, so the sealed
 * raw arguments never reach the client), then kept live in the browser while the call runs. The
 * tool's input schema goes along for "Replay with edits".
 */
export default async function TracePage({ params }: Props) {
  const initial = traceSnapshot((await params).id);
  if (!initial) notFound();
  const { executor, store } = getToolscope();
  const tool = executor.registry.get(initial.tool);
  return (
    <LiveTraceView
      key={initial.id}
      initial={initial}
      toolKnown={tool !== undefined}
      schema={tool ? formSchemaOf(tool) : null}
      neighbours={store.adjacent(initial.id)}
    />
  );
}
