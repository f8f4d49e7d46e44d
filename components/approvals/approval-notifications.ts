'use client';

import { useCallback, useSyncExternalStore } from 'react';
import type { TraceEvent } from '@/lib/events';
import { escapeInvisible } from '@/lib/ui/invisible-characters';

/** localStorage key: "1" when the user turned notifications for new pending calls on. */
const STORAGE_KEY = 'toolscope-approval-notifications';
const listeners = new Set<() => void>();

function supported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

function enabled(): boolean {
  try {
    return supported() && localStorage.getItem(STORAGE_KEY) === '1' && Notification.permission === 'granted';
  } catch {
    return false;
  }
}

/**
 * Shows a browser notification for a call that started waiting for approval, when the user
 * turned them on (and the browser allowed it) and this tab is not in front.
 */
export function notifyPendingCall(event: TraceEvent) {
  if (!enabled() || (document.visibilityState === 'visible' && document.hasFocus())) return;
  const notification = new Notification(`${escapeInvisible(event.tool)} is waiting for approval`, {
    body: event.session_id ? `Session ${escapeInvisible(event.session_id)}` : 'Open Approvals to decide it.',
    tag: `toolscope-approval-${event.trace_id}`,
  });
  notification.onclick = () => {
    window.focus();
    window.location.assign('/approvals');
  };
}

/** The toggle's state: off, on, or asked for but refused by the browser. */
export type NotificationSetting = 'unsupported' | 'off' | 'on' | 'blocked';

function read(): NotificationSetting {
  if (!supported()) return 'unsupported';
  let wanted = false;
  try {
    wanted = localStorage.getItem(STORAGE_KEY) === '1';
  } catch {
    // storage unavailable: treat as off
  }
  if (!wanted) return 'off';
  return Notification.permission === 'granted' ? 'on' : Notification.permission === 'denied' ? 'blocked' : 'off';
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener('storage', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', listener);
  };
}

/**
 * The remembered notification setting and a toggle. Turning it on asks the browser's permission
 * (once: the browser remembers the answer); it is never on by default.
 */
export function useNotificationSetting(): [NotificationSetting, () => Promise<void>] {
  const setting = useSyncExternalStore(subscribe, read, () => 'off' as const);
  const toggle = useCallback(async () => {
    const on = read() === 'on' || read() === 'blocked';
    if (on) {
      localStorage.removeItem(STORAGE_KEY);
    } else {
      localStorage.setItem(STORAGE_KEY, '1');
      if (Notification.permission === 'default') await Notification.requestPermission();
    }
    for (const listener of listeners) listener();
  }, []);
  return [setting, toggle];
}
