import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { CompareView } from '@/components/compare/compare-view';
import { getToolscope } from '@/lib/server/toolscope';
import { traceSnapshot } from '../../../../_lib/trace-snapshot';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ id: string; other: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id, other } = await params;
  return { title: `Compare ${id.slice(0, 8)} ↔ ${other.slice(0, 8)}` };
}

/**
 * Two calls compared (a call and its replay, usually): rendered from both snapshots taken now
 * (the API's redacted JSON), kept live in the browser while either runs, with the config's
 * volatile paths (`compare.ignore_paths`) left out of the verdict. 404 when either is unknown.
 */
export default async function ComparePage({ params }: Props) {
  const { id, other } = await params;
  const a = traceSnapshot(id);
  const b = traceSnapshot(other);
  if (!a || !b) notFound();
  return (
    <CompareView
      key={`${a.id}:${b.id}`}
      initialA={a}
      initialB={b}
      ignorePaths={getToolscope().config.compare.ignorePaths}
    />
  );
}
