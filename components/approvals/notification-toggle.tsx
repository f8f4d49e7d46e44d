'use client';

import { Bell, BellOff } from 'lucide-react';
import { useNotificationSetting } from './approval-notifications';

/**
 * Browser notifications for new pending calls: off by default; turning them on asks the
 * browser's permission (once); the choice is remembered in this browser.
 */
export function NotificationToggle() {
  const [setting, toggle] = useNotificationSetting();
  if (setting === 'unsupported') return null;
  const on = setting === 'on';
  return (
    <span className="inline-flex items-center gap-1.5 text-xs">
      <button
        type="button"
        role="switch"
        aria-checked={on}
        onClick={() => void toggle()}
        className="inline-flex items-center gap-1 rounded border border-line px-1.5 py-0.5 text-fg-muted hover:bg-muted hover:text-fg aria-checked:border-accent aria-checked:text-fg"
        data-testid="notification-toggle"
        title="A browser notification when a call starts waiting while this tab is in the background"
      >
        {on ? <Bell size={13} aria-hidden /> : <BellOff size={13} aria-hidden />}
        Notify me
      </button>
      {setting === 'blocked' && (
        <span className="text-amber-800 dark:text-amber-300" role="status">
          The browser blocks notifications for this site; allow them in its settings.
        </span>
      )}
    </span>
  );
}
