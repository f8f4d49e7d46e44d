import { CircleX } from 'lucide-react';
import type { ToolErrorData } from '@/lib/executor/types';
import { fieldIssuesOf } from '@/lib/ui/json-issues';
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

/** The call's error: code, message, hint, retryable, the stage that produced it, its classification, details. */
export function ErrorPanel({ error }: { error: ToolErrorData }) {
  const issues = fieldIssuesOf(error.details);
  const otherDetails =
    error.details && Object.keys(error.details).some((k) => k !== 'issues')
      ? Object.fromEntries(Object.entries(error.details).filter(([k]) => k !== 'issues'))
      : null;
  return (
    <section
      aria-labelledby="error-heading"
      className="rounded border-2 border-red-300 bg-red-50/60 p-3 dark:border-red-800 dark:bg-red-950/30"
      data-testid="error-panel"
    >
      <h2
        id="error-heading"
        className="mb-2 flex items-center gap-1.5 text-sm font-semibold text-red-800 dark:text-red-200"
      >
        <CircleX size={15} aria-hidden />
        Error{' '}
        <code className="font-mono" data-testid="error-code">
          {error.code}
        </code>
      </h2>
      <p className="mb-2" data-testid="error-message">
        {error.message}
      </p>
      {error.hint && <p className="mb-2 text-fg-muted">Hint for the model: {error.hint}</p>}
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-0.5 text-xs">
        <dt className="text-fg-muted">Retryable</dt>
        <dd data-testid="error-retryable">
          {error.retryable ? 'yes — retrying may help' : 'no — retrying will fail the same way'}
        </dd>
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
                <code className="font-mono">{issue.path || '(arguments)'}</code>: {issue.message}{' '}
                <span className="text-fg-muted">({issue.code})</span>
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
