'use client';

import { KeyRound, LogIn, ShieldAlert, TriangleAlert, X } from 'lucide-react';
import { useEffect, useRef } from 'react';
import type { CreatedKeyJson } from '@/lib/ui/keys-api';
import { RoleBadge } from '../access/role-badge';
import { CopyButton } from '../copy-button';

/**
 * The one time a key's token is shown: the token with a copy button, how it is used (agents send
 * it as a bearer token; people log in with it), and — when this key just ended local mode — that
 * this browser must now log in, with a "Log in with this key" form that posts it to /auth/login
 * (a plain form, as the login page's). An agent key cannot log in, and it says so.
 */
export function NewKeyToken({
  created,
  endedLocalMode,
  onDismiss,
}: {
  created: CreatedKeyJson;
  /** This key was the first: this browser has no key now. */
  endedLocalMode: boolean;
  onDismiss: () => void;
}) {
  const { key, token } = created;
  const agent = key.role === 'agent';
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    panel.current?.focus();
  }, []);

  return (
    <section
      ref={panel}
      tabIndex={-1}
      aria-labelledby="new-key-title"
      className="flex flex-col gap-2 rounded border-2 border-emerald-400 bg-emerald-50/60 p-2.5 text-[12px] outline-none dark:border-emerald-700 dark:bg-emerald-950/30"
      data-testid="new-key-token"
      data-key-id={key.id}
    >
      <div className="flex items-center gap-2">
        <KeyRound size={14} className="text-emerald-700 dark:text-emerald-400" aria-hidden />
        <h2 id="new-key-title" className="font-semibold">
          Key <span className="font-mono">{key.name}</span> created
        </h2>
        <RoleBadge role={key.role} />
        {endedLocalMode ? null : (
          <button
            type="button"
            onClick={onDismiss}
            className="ml-auto inline-flex items-center gap-1 rounded px-1 text-fg-muted hover:bg-muted hover:text-fg"
            data-testid="new-key-dismiss"
          >
            <X size={13} aria-hidden />I have copied it
          </button>
        )}
      </div>
      <p
        className="flex items-center gap-1 font-semibold text-amber-800 dark:text-amber-300"
        data-testid="new-key-once"
      >
        <TriangleAlert size={13} aria-hidden />
        Copy it now: it is not shown again.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <code
          className="min-w-0 select-all break-all rounded border border-line bg-bg px-2 py-1 font-mono text-[13px]"
          data-testid="new-key-token-value"
        >
          {token}
        </code>
        <CopyButton text={token} label="Copy token" testId="new-key-copy" />
      </div>
      {agent ? (
        <p className="text-fg-muted" data-testid="new-key-usage">
          Agents send it with every request:{' '}
          <code className="rounded bg-bg px-1 font-mono text-fg">Authorization: Bearer {token.slice(0, 8)}…</code>. An
          agent key cannot log in to these pages.
        </p>
      ) : (
        <p className="text-fg-muted" data-testid="new-key-usage">
          {key.name} logs in with it on the login page; programs can send it as{' '}
          <code className="rounded bg-bg px-1 font-mono text-fg">Authorization: Bearer {token.slice(0, 8)}…</code>.
        </p>
      )}
      {endedLocalMode ? (
        <div
          className="flex flex-col gap-1.5 rounded border border-amber-400 bg-amber-50 px-2 py-1.5 text-amber-900 dark:border-amber-700 dark:bg-amber-950/40 dark:text-amber-200"
          role="status"
          data-testid="local-mode-ended"
        >
          <p className="flex items-start gap-1.5">
            <ShieldAlert size={13} className="mt-0.5 shrink-0" aria-hidden />
            <span>
              <strong>Local mode has ended.</strong> Every request now needs a key — this browser's too: the pages and
              this list will not load again until you log in.
            </span>
          </p>
          {agent ? (
            <p data-testid="local-mode-agent">
              This is an agent key, which cannot log in. Create an admin key in a terminal (
              <code className="font-mono">npm run keys -- create --name &lt;name&gt; --role admin</code>) and log in
              with that one.
            </p>
          ) : (
            <form method="post" action="/auth/login" data-testid="login-with-key">
              <input type="hidden" name="token" value={token} />
              <input type="hidden" name="next" value="/keys" />
              <button
                type="submit"
                className="inline-flex items-center gap-1 rounded border border-accent bg-accent px-2 py-0.5 font-medium text-white hover:opacity-90 dark:text-bg"
                data-testid="login-with-key-submit"
              >
                <LogIn size={13} aria-hidden />
                Log in with this key
              </button>
              <span className="ml-2 text-[11px]">Copy the token first: after this, it is never shown again.</span>
            </form>
          )}
        </div>
      ) : null}
    </section>
  );
}
