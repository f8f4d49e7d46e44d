import { KeyRound } from 'lucide-react';
import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { ResumeSession } from '@/components/access/resume-session';
import { safeNextPath } from '@/lib/access/safe-next-path';
import { currentPrincipal } from '../_lib/principal';

export const metadata: Metadata = { title: 'Log in' };

/** What the form says after a refused login. */
const ERRORS: Record<string, string> = {
  'wrong-key': 'That key is not valid here: wrong, unknown or revoked.',
  'agent-key':
    'That is an agent key: agents send it with their requests, people log in with a viewer, reviewer or admin key.',
};

/**
 * The login form of a Toolscope with keys (or `TOOLSCOPE_TOKEN`): one field for a person's key.
 * A plain form posting to /auth/login, so it works before any script has loaded.
 */
export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const params = await searchParams;
  const next = safeNextPath(typeof params.next === 'string' ? params.next : '/');
  if (await currentPrincipal()) redirect(next);
  const error = typeof params.error === 'string' ? (ERRORS[params.error] ?? null) : null;
  const wrong = error !== null;
  return (
    <div className="mx-auto flex max-w-sm flex-col gap-4 py-16" data-testid="login">
      <ResumeSession next={next} />
      <div className="flex flex-col gap-1">
        <h1 className="flex items-center gap-2 text-base font-semibold">
          <KeyRound size={16} className="text-accent" aria-hidden />
          Log in to Toolscope
        </h1>
        <p className="text-fg-muted">
          This Toolscope asks for a key: your own (an admin makes one on the Keys page or with{' '}
          <code className="font-mono">npm run keys -- create</code>), or the{' '}
          <code className="font-mono">TOOLSCOPE_TOKEN</code> it was started with.
        </p>
      </div>
      <form method="post" action="/auth/login" className="flex flex-col gap-3">
        <input type="hidden" name="next" value={next} />
        <label className="flex flex-col gap-1">
          <span className="font-medium">Key</span>
          <input
            type="password"
            name="token"
            required
            autoComplete="current-password"
            // biome-ignore lint/a11y/noAutofocus: the page's only field
            autoFocus
            aria-invalid={wrong || undefined}
            aria-describedby={wrong ? 'login-error' : undefined}
            className="rounded border border-line bg-bg px-2 py-1.5 font-mono focus:outline-none focus:ring-2 focus:ring-accent"
          />
        </label>
        {wrong && (
          <p id="login-error" role="alert" data-testid="login-error" className="text-red-600 dark:text-red-400">
            {error}
          </p>
        )}
        <button
          type="submit"
          className="self-start rounded bg-accent px-3 py-1.5 font-medium text-white hover:opacity-90 dark:text-black"
        >
          Log in
        </button>
      </form>
    </div>
  );
}
