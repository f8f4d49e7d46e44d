import { LogOut } from 'lucide-react';

/** The header's "Log out", shown when a token is in use: a form, so it needs no script. */
export function LogoutButton() {
  return (
    <form method="post" action="/auth/logout">
      <button
        type="submit"
        className="inline-flex items-center gap-1.5 rounded border border-line px-2 py-1 text-fg-muted hover:bg-muted hover:text-fg"
        aria-label="Log out"
        title="Log out"
      >
        <LogOut size={14} aria-hidden />
      </button>
    </form>
  );
}
