'use client';

import { X } from 'lucide-react';
import type { ReactNode } from 'react';

/** The border of an input whose value the server refused. */
export const invalid = 'border-red-500 dark:border-red-500';

/** A labelled form field with the server's complaint about it underneath. */
export function Field({
  label,
  error,
  id,
  errorTestId,
  className = '',
  children,
}: {
  label: ReactNode;
  error: string | undefined;
  id: string;
  errorTestId: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={`flex flex-col gap-0.5 ${className}`}>
      <label htmlFor={id} className="text-[11px] text-fg-muted">
        {label}
      </label>
      {children}
      {error ? (
        <p
          id={`${id}-error`}
          role="alert"
          // as wide as the field, never wider: an error does not push the next fields aside
          className="w-0 min-w-full whitespace-pre-line break-words text-[12px] text-red-700 dark:text-red-300"
          data-testid={errorTestId}
        >
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The props of an input that shows the server's complaint about its field. */
export function errorProps(id: string, error: string | undefined) {
  return {
    id,
    'aria-invalid': Boolean(error),
    'aria-describedby': error ? `${id}-error` : undefined,
  };
}

/** A form's title line: its title, the keys that submit and close it, and a close button. */
export function FormTitleBar({
  titleId,
  title,
  submitVerb,
  onClose,
}: {
  titleId: string;
  title: ReactNode;
  submitVerb: string;
  onClose: () => void;
}) {
  return (
    <div className="flex items-center gap-2">
      <h2 id={titleId} className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
        {title}
      </h2>
      <span data-keyboard-hint className="hidden text-[11px] text-fg-muted sm:inline">
        <kbd className="rounded border border-line bg-bg px-1 font-mono">Enter</kbd> {submitVerb} ·{' '}
        <kbd className="rounded border border-line bg-bg px-1 font-mono">Esc</kbd> close
      </span>
      <button
        type="button"
        onClick={onClose}
        className="ml-auto rounded p-0.5 text-fg-muted hover:bg-muted hover:text-fg"
        aria-label="Close the form"
      >
        <X size={14} aria-hidden />
      </button>
    </div>
  );
}
