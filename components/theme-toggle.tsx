'use client';

import { Monitor, Moon, Sun } from 'lucide-react';
import { useEffect, useState } from 'react';
import { THEME_STORAGE_KEY, type ThemeChoice } from '@/lib/ui/theme';

const NEXT: Record<ThemeChoice, ThemeChoice> = { system: 'light', light: 'dark', dark: 'system' };
const LABEL: Record<ThemeChoice, string> = { system: 'System theme', light: 'Light theme', dark: 'Dark theme' };

function apply(choice: ThemeChoice) {
  const dark = choice === 'dark' || (choice === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.classList.toggle('dark', dark);
  document.documentElement.dataset.theme = choice;
}

/** Cycles system → light → dark; the choice is kept in localStorage and applied before paint by THEME_SCRIPT. */
export function ThemeToggle() {
  const [choice, setChoice] = useState<ThemeChoice | null>(null);

  useEffect(() => {
    const stored = document.documentElement.dataset.theme;
    setChoice(stored === 'light' || stored === 'dark' ? stored : 'system');
  }, []);

  useEffect(() => {
    if (choice !== 'system') return;
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    const onChange = () => apply('system');
    media.addEventListener('change', onChange);
    return () => media.removeEventListener('change', onChange);
  }, [choice]);

  const current = choice ?? 'system';
  const Icon = current === 'dark' ? Moon : current === 'light' ? Sun : Monitor;
  return (
    <button
      type="button"
      className="inline-flex items-center gap-1.5 rounded border border-line px-2 py-1 text-fg-muted hover:bg-muted hover:text-fg"
      aria-label={`${LABEL[current]} (click for ${LABEL[NEXT[current]].toLowerCase()})`}
      title={LABEL[current]}
      data-testid="theme-toggle"
      onClick={() => {
        const next = NEXT[current];
        try {
          if (next === 'system') localStorage.removeItem(THEME_STORAGE_KEY);
          else localStorage.setItem(THEME_STORAGE_KEY, next);
        } catch {
          // storage unavailable: the choice lasts for this page only
        }
        apply(next);
        setChoice(next);
      }}
    >
      <Icon size={14} aria-hidden />
      <span className="text-xs max-sm:sr-only">
        {current === 'system' ? 'Auto' : current === 'dark' ? 'Dark' : 'Light'}
      </span>
    </button>
  );
}
