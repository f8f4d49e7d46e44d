import {
  Ban,
  CircleCheck,
  CircleMinus,
  CircleSlash,
  CircleStop,
  CircleX,
  Hourglass,
  LoaderCircle,
  type LucideIcon,
} from 'lucide-react';
import type { CallStatus, StageStatus } from '@/lib/executor/types';

interface Look {
  label: string;
  Icon: LucideIcon;
  /** Text and border colours; the icon and label carry the meaning too, never the colour alone. */
  className: string;
  spin?: boolean;
}

export const CALL_STATUS_LOOK: Record<CallStatus, Look> = {
  running: {
    label: 'running',
    Icon: LoaderCircle,
    className: 'text-blue-700 bg-blue-50 border-blue-200 dark:text-blue-300 dark:bg-blue-950/50 dark:border-blue-900',
    spin: true,
  },
  awaiting_approval: {
    label: 'awaiting approval',
    Icon: Hourglass,
    className:
      'text-amber-800 bg-amber-50 border-amber-200 dark:text-amber-300 dark:bg-amber-950/50 dark:border-amber-900',
  },
  succeeded: {
    label: 'succeeded',
    Icon: CircleCheck,
    className:
      'text-emerald-800 bg-emerald-50 border-emerald-200 dark:text-emerald-300 dark:bg-emerald-950/50 dark:border-emerald-900',
  },
  failed: {
    label: 'failed',
    Icon: CircleX,
    className: 'text-red-700 bg-red-50 border-red-200 dark:text-red-300 dark:bg-red-950/50 dark:border-red-900',
  },
  denied: {
    label: 'denied',
    Icon: Ban,
    className:
      'text-orange-800 bg-orange-50 border-orange-200 dark:text-orange-300 dark:bg-orange-950/50 dark:border-orange-900',
  },
  cancelled: {
    label: 'cancelled',
    Icon: CircleStop,
    className: 'text-zinc-800 bg-zinc-100 border-zinc-400 dark:text-zinc-200 dark:bg-zinc-800/60 dark:border-zinc-600',
  },
  interrupted: {
    label: 'interrupted',
    Icon: CircleSlash,
    className: 'text-zinc-700 bg-zinc-100 border-zinc-300 dark:text-zinc-300 dark:bg-zinc-800/60 dark:border-zinc-700',
  },
};

export const STAGE_STATUS_LOOK: Record<StageStatus, Look> = {
  ok: {
    label: 'ok',
    Icon: CircleCheck,
    className:
      'text-emerald-800 bg-emerald-50 border-emerald-300 dark:text-emerald-300 dark:bg-emerald-950/40 dark:border-emerald-800',
  },
  failed: {
    label: 'failed',
    Icon: CircleX,
    className: 'text-red-700 bg-red-50 border-red-400 dark:text-red-300 dark:bg-red-950/50 dark:border-red-700',
  },
  skipped: {
    label: 'skipped',
    Icon: CircleMinus,
    className: 'text-zinc-500 bg-subtle border-dashed border-line dark:text-zinc-400',
  },
  waiting: {
    label: 'waiting',
    Icon: Hourglass,
    className:
      'text-amber-800 bg-amber-50 border-amber-400 dark:text-amber-300 dark:bg-amber-950/50 dark:border-amber-700',
  },
  running: {
    label: 'running',
    Icon: LoaderCircle,
    className: 'text-blue-700 bg-blue-50 border-blue-400 dark:text-blue-300 dark:bg-blue-950/50 dark:border-blue-700',
    spin: true,
  },
};

/** A call's status as icon + word in its colour. */
export function StatusBadge({ status, testId }: { status: CallStatus; testId?: string }) {
  const look = CALL_STATUS_LOOK[status];
  return (
    <span
      data-testid={testId}
      data-status={status}
      className={`inline-flex items-center gap-1 whitespace-nowrap rounded border px-1.5 py-px text-xs font-medium ${look.className}`}
    >
      <look.Icon size={12} aria-hidden className={look.spin ? 'animate-spin' : undefined} />
      {look.label}
    </span>
  );
}

/** A small neutral or tinted tag (retried, fell back, truncated...). */
export function Tag({
  children,
  tone = 'neutral',
  title,
}: {
  children: React.ReactNode;
  tone?: 'neutral' | 'warn' | 'info';
  title?: string;
}) {
  const tones = {
    neutral: 'border-line text-fg-muted',
    warn: 'border-amber-300 text-amber-800 dark:border-amber-800 dark:text-amber-300',
    info: 'border-blue-300 text-blue-800 dark:border-blue-800 dark:text-blue-300',
  };
  return (
    <span
      title={title}
      className={`inline-flex items-center gap-1 whitespace-nowrap rounded border px-1 text-[11px] leading-4 ${tones[tone]}`}
    >
      {children}
    </span>
  );
}
