import type { Metadata } from 'next';
import { FaultsView } from '@/components/faults/faults-view';
import { getToolscope } from '@/lib/server/toolscope';
import { faultRulesSnapshot } from './snapshot';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Faults' };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The fault rules with their hit counters, rendered from the rules as they are now (the API's
 * JSON), then kept live in the browser. The registered tools (name, attempts allowed) go along
 * for the form's target suggestions and its warnings; `?rule=<id>` (a trace's fault badge) highlights that rule.
 */
export default async function FaultsPage({ searchParams }: Props) {
  const ts = getToolscope();
  const rule = (await searchParams).rule;
  const tools = ts.executor.registry
    .list()
    .map((tool) => ({ name: tool.name, maxAttempts: tool.retry.maxAttempts }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return (
    <FaultsView
      initial={faultRulesSnapshot(ts)}
      tools={tools}
      renderedAt={Date.now()}
      highlightId={typeof rule === 'string' && rule.length <= 64 ? rule : null}
    />
  );
}
