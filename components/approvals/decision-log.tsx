import { Ban, CircleCheck, CircleX, ShieldCheck } from 'lucide-react';
import Link from 'next/link';
import type { Decision, DecisionResult } from '@/lib/ui/approvals';
import { VisibleText } from '../visible-text';

/** A decision made on this page: recorded (with the rule created), or refused by the server. */
export type LogEntry =
  | { ok: true; traceId: string; tool: string; decision: Decision; result: DecisionResult }
  | { ok: false; traceId: string; tool: string; message: string };

function decisionWords(entry: Extract<LogEntry, { ok: true }>): string {
  if (entry.decision.decision === 'deny') return 'Denied';
  return entry.decision.arguments !== undefined ? 'Approved with edits' : 'Approved';
}

/**
 * The last decisions made here, newest first: each links to its trace; "always allow" shows the
 * rule it created with a link to the Policy page. Refusals of calls no longer in the queue stay
 * here (their cards are gone); `stale` says some exist.
 */
export function DecisionLog({ entries, stale }: { entries: LogEntry[]; stale: boolean }) {
  if (entries.length === 0) return null;
  return (
    <section
      aria-label="Decided here"
      className="rounded border border-line bg-subtle/60 px-2.5 py-1.5 text-xs"
      data-testid="decision-log"
    >
      <h2 className="sr-only">Decided here</h2>
      <ul className="flex flex-col gap-0.5" aria-live="polite">
        {entries.map((entry, index) => (
          <li
            // biome-ignore lint/suspicious/noArrayIndexKey: one trace may be logged twice (refused, then decided)
            key={`${entry.traceId}-${index}`}
            className="flex flex-wrap items-center gap-x-2"
            data-testid="decision-entry"
            data-trace-id={entry.traceId}
            data-ok={entry.ok}
          >
            {entry.ok ? (
              <>
                {entry.decision.decision === 'deny' ? (
                  <Ban size={12} className="text-orange-700 dark:text-orange-300" aria-hidden />
                ) : entry.result.rule_created ? (
                  <ShieldCheck size={12} className="text-emerald-700 dark:text-emerald-300" aria-hidden />
                ) : (
                  <CircleCheck size={12} className="text-emerald-700 dark:text-emerald-300" aria-hidden />
                )}
                <span className="font-medium">{decisionWords(entry)}</span>
                <span className="font-mono">
                  <VisibleText text={entry.tool} />
                </span>
                {entry.result.rule_created && (
                  <span data-testid="rule-created">
                    · rule created{' '}
                    <code className="font-mono text-fg">
                      <VisibleText text={entry.result.rule_created} />
                    </code>{' '}
                    <Link href="/policy" className="text-accent hover:underline">
                      Policy →
                    </Link>
                  </span>
                )}
              </>
            ) : (
              <>
                <CircleX size={12} className="text-red-700 dark:text-red-300" aria-hidden />
                <span className="text-red-800 dark:text-red-200" role={stale ? 'alert' : undefined}>
                  <VisibleText text={entry.tool} />: {entry.message}
                </span>
              </>
            )}
            <Link href={`/traces/${entry.traceId}`} className="ml-auto text-accent hover:underline">
              trace →
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
