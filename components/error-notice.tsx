'use client';

import { RotateCw, TriangleAlert } from 'lucide-react';

/**
 * What a page shows when it could not render: what happened in plain words, what to try, a retry
 * button, and the error's digest to find it in the server's log. Never the bare framework page.
 */
export function ErrorNotice({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = typeof error === 'object' && error !== null ? (error as { digest?: unknown }).digest : undefined;
  return (
    <div className="flex max-w-2xl flex-col items-start gap-3 py-10" role="alert" data-testid="error-page">
      <h1 className="flex items-center gap-2 text-base font-semibold">
        <TriangleAlert size={16} className="text-red-600 dark:text-red-400" aria-hidden />
        This page could not be shown
      </h1>
      <p className="text-fg-muted">Toolscope hit an error while preparing it. Your recorded calls are not affected.</p>
      <ul className="list-disc pl-5 text-fg-muted">
        <li>Try again: a call that was being written may have finished by now.</li>
        <li>
          If it keeps failing, check the terminal running Toolscope: the error is logged there
          {typeof digest === 'string' ? (
            <>
              {' '}
              with the id <code className="font-mono text-fg">{digest}</code>
            </>
          ) : null}
          .
        </li>
        <li>
          Or go back to the{' '}
          <a href="/" className="text-accent hover:underline">
            newest calls
          </a>
          .
        </li>
      </ul>
      <button
        type="button"
        onClick={retry}
        className="inline-flex items-center gap-1.5 rounded border border-line bg-subtle px-2.5 py-1 hover:bg-muted"
        data-testid="error-retry"
      >
        <RotateCw size={13} aria-hidden />
        Try again
      </button>
    </div>
  );
}
