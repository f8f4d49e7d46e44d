import { Lock } from 'lucide-react';
import type { ReactNode } from 'react';

/**
 * What a page shows a role that may not use it: in plain words who may, and who you are — not a
 * crash, not the bare 403 of the API behind it.
 */
export function NotAllowed({ title, children, testId }: { title: string; children: ReactNode; testId: string }) {
  return (
    <div className="flex max-w-2xl flex-col items-start gap-2 py-10" role="alert" data-testid={testId}>
      <h1 className="flex items-center gap-2 text-base font-semibold">
        <Lock size={16} className="text-fg-muted" aria-hidden />
        {title}
      </h1>
      <p className="text-fg-muted">{children}</p>
    </div>
  );
}
