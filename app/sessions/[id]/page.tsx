import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { SessionView } from '@/components/sessions/session-view';
import { sessionDetail } from '@/lib/api/sessions';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ id: string }> };

/** The session id of the path segment, percent-decoded when Next left it encoded. */
function sessionIdOf(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Session ${sessionIdOf((await params).id)}` };
}

/** One session on one time axis, rendered from the API's JSON and kept live in the browser. */
export default async function SessionPage({ params }: Props) {
  const id = sessionIdOf((await params).id);
  const now = Date.now();
  const initial = sessionDetail(getToolscope(), id, now);
  if (!initial) notFound();
  return <SessionView key={id} initial={initial} renderedAt={now} />;
}
