'use client';

import { ShieldAlert, UserRound } from 'lucide-react';
import { LogoutButton } from './logout-button';
import { useViewer } from './viewer';

/**
 * The header's who-is-this: local mode said plainly (anyone on this machine can approve), or the
 * logged-in key's name and role with "Log out".
 */
export function WhoAmI() {
  const viewer = useViewer();
  if (!viewer) return null;
  if (viewer.localMode) {
    return (
      <span
        data-testid="local-mode"
        title="Local mode: no key is set up, so anyone on this machine can use every page and approve calls. Create a key (Keys page, or npm run keys -- create) to require one."
        className="inline-flex items-center gap-1 rounded border border-amber-400 bg-amber-50 px-2 py-0.5 text-xs text-amber-900 dark:border-amber-700 dark:bg-amber-950/40 dark:text-amber-200"
      >
        <ShieldAlert size={13} aria-hidden />
        <span className="max-md:sr-only">Local mode: anyone on this machine can approve</span>
        <span className="md:hidden" aria-hidden>
          Local
        </span>
      </span>
    );
  }
  return (
    <span className="inline-flex items-center gap-1.5">
      <span
        data-testid="viewer"
        data-role={viewer.role}
        title={`Logged in as ${viewer.name} (${viewer.role})`}
        className="inline-flex items-center gap-1 rounded border border-line px-2 py-0.5 text-xs text-fg-muted"
      >
        <UserRound size={13} aria-hidden />
        <span className="max-w-[10rem] truncate font-medium text-fg">{viewer.name}</span>
        <span className="max-sm:sr-only">· {viewer.role}</span>
      </span>
      {viewer.kind !== 'local' && <LogoutButton />}
    </span>
  );
}
