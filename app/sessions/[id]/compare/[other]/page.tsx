import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { SessionCompareView } from '@/components/compare/session-compare-view';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ id: string; other: string }> };

export const metadata: Metadata = { title: 'Compare sessions' };

/** Two sessions call by call, usually a session and its replay (the pairs come from `GET /api/v1/sessions/:id/compare/:other`, live). */
export default async function SessionComparePage({ params }: Props) {
  const { id, other } = await params;
  if (id.length > 256 || other.length > 256) notFound();
  return <SessionCompareView key={`${id}:${other}`} sessionId={id} otherId={other} />;
}
