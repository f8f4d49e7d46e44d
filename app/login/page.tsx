import { KeyRound } from 'lucide-react';
import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { ResumeSession } from '@/components/access/resume-session';
import { carriesToken } from '@/lib/api/access-token';
import { safeNextPath } from '@/lib/api/login-redirect';
import { getToolscope } from '@/lib/server/toolscope';

export const metadata: Metadata = { title: 'Log in' };

/**
 * The login form of a Toolscope with `TOOLSCOPE_TOKEN` set: one field for the token. A plain
 * form posting to /auth/login, so it works before any script has loaded.
 */
export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const params = await searchParams;
  const next = safeNextPath(typeof params.next === 'string' ? params.next : '/');
  const { token } = getToolscope().config;
  if (!token || carriesToken(await headers(), token)) redirect(next);
  const wrong = params.error === 'wrong-token';
  return (
    <div className="mx-auto flex max-w-sm flex-col gap-4 py-16" data-testid="login">
      <ResumeSession next={next} />
      <div className="flex flex-col gap-1">
        <h1 className="flex items-center gap-2 text-base font-semibold">
          <KeyRound size={16} className="text-accent" aria-hidden />
          Log in to Toolscope
        </h1>
        <p className="text-fg-muted">
          This Toolscope asks for its token: the value of <code className="font-mono">TOOLSCOPE_TOKEN</code> it was
          started with.
        </p>
      </div>
      <form method="post" action="/auth/login" className="flex flex-col gap-3">
        <input type="hidden" name="next" value={next} />
        <label className="flex flex-col gap-1">
          <span className="font-medium">Token</span>
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
            That is not this Toolscope&apos;s token.
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
