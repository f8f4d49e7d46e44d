'use client';

import { EyeOff } from 'lucide-react';

/** "3 volatile differences ignored", with the box that shows them (struck through) or hides them. */
export function IgnoredToggle({
  count,
  shown,
  onShown,
  rules,
}: {
  count: number;
  shown: boolean;
  onShown: (shown: boolean) => void;
  /** The patterns applied, for the tooltip. */
  rules: readonly string[];
}) {
  if (count === 0) return null;
  return (
    <label
      className="inline-flex items-center gap-1 text-xs text-fg-muted"
      title={`Output differences at volatile paths do not count as "output changed": ${rules.join(', ')} (set more with compare.ignore_paths in the config)`}
      data-testid="ignored-toggle"
    >
      <EyeOff size={12} aria-hidden />
      <span data-testid="ignored-count" data-count={count}>
        {count} volatile difference{count === 1 ? '' : 's'} ignored
      </span>
      <input
        type="checkbox"
        className="ml-1"
        checked={shown}
        onChange={(event) => onShown(event.target.checked)}
        data-testid="show-ignored"
      />
      show
    </label>
  );
}
