'use client';

import type { UseMutationResult } from '@tanstack/react-query';
import { LoaderCircle, ShieldAlert, ShieldCheck } from 'lucide-react';
import type { AuditVerifyJson } from '@/lib/ui/audit-api';

/**
 * "Verify chain" and its verdict: the server walks every entry's hash from the first; either the
 * chain holds (how many entries), or the first entry that does not (an entry edited, removed, or
 * added behind the server's back), in red.
 */
export function VerifyChain({ verify }: { verify: UseMutationResult<AuditVerifyJson, Error, void> }) {
  const result = verify.data;
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <button
        type="button"
        onClick={() => verify.mutate()}
        disabled={verify.isPending}
        className="inline-flex items-center gap-1 rounded border border-line bg-bg px-2 py-0.5 text-fg hover:bg-muted disabled:opacity-50"
        title="Check every entry's hash against the one before it (v)"
        data-testid="audit-verify"
      >
        {verify.isPending ? (
          <LoaderCircle size={13} className="animate-spin" aria-hidden />
        ) : (
          <ShieldCheck size={13} aria-hidden />
        )}
        Verify chain
      </button>
      <span aria-live="polite" className="contents">
        {verify.isError ? (
          <span className="text-red-700 dark:text-red-300" role="alert" data-testid="audit-verify-error">
            Could not verify: {verify.error.message}
          </span>
        ) : result && !verify.isPending ? (
          result.ok ? (
            <span
              className="inline-flex items-center gap-1 rounded border border-emerald-300 bg-emerald-50 px-1.5 font-medium text-emerald-800 dark:border-emerald-800 dark:bg-emerald-950/40 dark:text-emerald-300"
              data-testid="audit-verify-result"
              data-ok="true"
              data-entries={result.entries}
            >
              <ShieldCheck size={12} aria-hidden />
              Chain intact: {result.entries} {result.entries === 1 ? 'entry' : 'entries'}
            </span>
          ) : (
            <span
              className="inline-flex items-center gap-1 rounded border border-red-400 bg-red-50 px-1.5 font-semibold text-red-800 dark:border-red-800 dark:bg-red-950/50 dark:text-red-300"
              role="alert"
              data-testid="audit-verify-result"
              data-ok="false"
              data-first-bad-seq={result.first_bad_seq ?? ''}
              title="From this entry on, the trail is not what the server wrote: an entry was edited, removed or inserted"
            >
              <ShieldAlert size={12} aria-hidden />
              Chain broken at entry #{result.first_bad_seq}
            </span>
          )
        ) : null}
      </span>
    </span>
  );
}
