import { CircleStop, CircleX } from 'lucide-react';
import Link from 'next/link';
import type { ToolErrorData } from '@/lib/executor/types';
import { fieldIssuesOf } from '@/lib/ui/json-issues';
import { InjectedFaultNote } from '../faults/injected-fault-note';
import { VisibleText } from '../visible-text';
import { JsonTree } from './json-tree';

const KIND_TEXT: Record<string, string> = {
  parameter: 'parameter — the model sent something wrong; the same call will fail again',
  temporary: 'temporary — the world hiccupped; the same call may work later',
  business: 'business — the tool ran and said no',
  timeout: 'timeout — an attempt ran past its deadline',
  permission: 'permission — policy or a person refused the call',
  limit: 'limit — the call hit a limit Toolscope enforces; the same call hits it again',
  internal: 'internal — Toolscope itself failed or the call was cancelled',
};

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);

/**
 * The call's error: code, message, hint, retryable, the stage that produced it, its classification,
 * details. A cancellation says who cancelled it; one caused by another call of the batch failing
 * (fail_fast) links to that call.
 */
export function ErrorPanel({ error }: { error: ToolErrorData }) {
  const issues = fieldIssuesOf(error.details);
  const failedTraceId = text(error.details?.failedTraceId);
  const cancelledBy = error.code === 'CANCELLED' ? (text(error.details?.cancelledBy) ?? text(error.details?.by)) : null;
  const otherDetails =
    error.details && Object.keys(error.details).some((k) => k !== 'issues')
      ? Object.fromEntries(Object.entries(error.details).filter(([k]) => k !== 'issues'))
      : null;
  // A cancellation is something someone chose, not a failure: drawn neutral, not alarming.
  const cancelled = error.code === 'CANCELLED';
  const Icon = cancelled ? CircleStop : CircleX;
  return (
    <section
      aria-labelledby="error-heading"
      className={`rounded border-2 p-3 ${cancelled ? 'border-zinc-300 bg-subtle dark:border-zinc-600' : 'border-red-300 bg-red-50/60 dark:border-red-800 dark:bg-red-950/30'}`}
      data-testid="error-panel"
    >
      <h2
        id="error-heading"
        className={`mb-2 flex items-center gap-1.5 text-sm font-semibold ${cancelled ? 'text-fg' : 'text-red-800 dark:text-red-200'}`}
      >
        <Icon size={15} aria-hidden />
        {cancelled ? 'Cancelled' : 'Error'}{' '}
        <code className="font-mono" data-testid="error-code">
          {error.code}
        </code>
      </h2>
      <p className="mb-2" data-testid="error-message">
        <VisibleText text={error.message} lines />
      </p>
      <InjectedFaultNote details={error.details} />
      {error.hint && <p className="mb-2 text-fg-muted">Hint for the model: {error.hint}</p>}
      {failedTraceId && (
        <p className="mb-2">
          Caused by{' '}
          <Link
            href={`/traces/${encodeURIComponent(failedTraceId)}`}
            className="font-mono text-accent hover:underline"
            data-testid="error-failed-call"
          >
            the call that failed{text(error.details?.failedToolCallId) ? ` (${error.details?.failedToolCallId})` : ''}
          </Link>
          .
        </p>
      )}
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-0.5 text-xs">
        <dt className="text-fg-muted">Retryable</dt>
        <dd data-testid="error-retryable">
          {error.retryable ? 'yes — retrying may help' : 'no — retrying will fail the same way'}
        </dd>
        {cancelledBy && (
          <>
            <dt className="text-fg-muted">Cancelled by</dt>
            <dd data-testid="error-cancelled-by">
              <VisibleText text={cancelledBy} />
            </dd>
          </>
        )}
        <dt className="text-fg-muted">Stage</dt>
        <dd className="font-mono" data-testid="error-stage">
          {error.stage ?? '—'}
        </dd>
        <dt className="text-fg-muted">Classification</dt>
        <dd data-testid="error-kind">{KIND_TEXT[error.kind] ?? error.kind}</dd>
      </dl>
      {issues.length > 0 && (
        <div className="mt-2">
          <h3 className="text-xs font-semibold">Field issues</h3>
          <ul className="mt-1 list-inside list-disc text-xs">
            {issues.map((issue) => (
              <li key={`${issue.path}:${issue.code}:${issue.message}`}>
                <code className="font-mono">
                  <VisibleText text={issue.path || '(arguments)'} />
                </code>
                : <VisibleText text={issue.message} /> <span className="text-fg-muted">({issue.code})</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {otherDetails && (
        <div className="mt-2">
          <h3 className="text-xs font-semibold">Details</h3>
          <JsonTree value={otherDetails} label="Error details" expandDepth={2} />
        </div>
      )}
    </section>
  );
}
