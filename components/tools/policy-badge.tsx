import type { Policy, SideEffect } from '@/lib/executor/types';

const POLICY_CLASS: Record<Policy, string> = {
  allow: 'border-emerald-300 text-emerald-800 dark:border-emerald-800 dark:text-emerald-300',
  ask: 'border-amber-300 text-amber-800 dark:border-amber-800 dark:text-amber-300',
  deny: 'border-red-300 text-red-700 dark:border-red-800 dark:text-red-300',
};

export function PolicyBadge({ policy, text }: { policy: Policy; text: string }) {
  return <span className={`whitespace-nowrap rounded border px-1 text-[11px] ${POLICY_CLASS[policy]}`}>{text}</span>;
}

const EFFECT_CLASS: Record<SideEffect, string> = {
  none: 'text-fg-muted',
  read: 'text-blue-700 dark:text-blue-300',
  write: 'text-orange-700 dark:text-orange-300',
  exec: 'text-red-700 dark:text-red-300',
};

export function SideEffectLabel({ effect }: { effect: SideEffect }) {
  return <span className={`font-mono text-[12px] ${EFFECT_CLASS[effect]}`}>{effect}</span>;
}

const CIRCUIT_TEXT = { closed: 'closed', open: 'OPEN', half_open: 'half-open' } as const;

export function CircuitLabel({ state, enabled }: { state: keyof typeof CIRCUIT_TEXT; enabled: boolean }) {
  if (!enabled) return <span className="text-fg-muted">off</span>;
  const cls =
    state === 'open'
      ? 'font-semibold text-red-700 dark:text-red-300'
      : state === 'half_open'
        ? 'text-amber-800 dark:text-amber-300'
        : 'text-fg-muted';
  return (
    <span className={cls} data-testid="circuit-state" data-state={state}>
      {state === 'open' ? '● ' : state === 'half_open' ? '◐ ' : '○ '}
      {CIRCUIT_TEXT[state]}
    </span>
  );
}
