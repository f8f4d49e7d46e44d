'use client';

import { Search, X } from 'lucide-react';
import type { ReactNode, RefObject } from 'react';
import type { AuditFilters } from '@/lib/ui/audit-api';

const input =
  'h-6 rounded border border-line bg-bg pl-5 pr-1 font-mono text-[12px] placeholder:font-sans placeholder:text-fg-muted';

function TextFilter({
  label,
  value,
  placeholder,
  onChange,
  inputRef,
  testId,
}: {
  label: string;
  value: string;
  placeholder: string;
  onChange: (value: string) => void;
  inputRef?: RefObject<HTMLInputElement | null>;
  testId: string;
}) {
  return (
    <label className="relative flex items-center max-sm:min-w-[10rem] max-sm:flex-1">
      <span className="sr-only">{label}</span>
      <Search size={12} className="pointer-events-none absolute left-1.5 text-fg-muted" aria-hidden />
      <input
        ref={inputRef}
        type="search"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Escape') return;
          // Escape leaves the field; the filter stays (Chrome would clear it).
          e.preventDefault();
          e.currentTarget.blur();
        }}
        placeholder={placeholder}
        maxLength={256}
        spellCheck={false}
        autoComplete="off"
        className={`${input} w-44 max-sm:w-full`}
        data-testid={testId}
      />
    </label>
  );
}

/**
 * The Audit page's sticky bar: filters by kind, principal (id or name) and target (an id), all
 * exact and kept in the address bar; Clear; and, at the end, `verify` (the chain check).
 */
export function AuditFiltersBar({
  kinds,
  text,
  onText,
  kind,
  onKind,
  filtered,
  onClear,
  principalInput,
  verify,
}: {
  kinds: readonly string[];
  /** The text filters as typed (applied after a pause). */
  text: Pick<AuditFilters, 'principal' | 'target'>;
  onText: (text: Pick<AuditFilters, 'principal' | 'target'>) => void;
  kind: string;
  onKind: (kind: string) => void;
  filtered: boolean;
  onClear: () => void;
  principalInput: RefObject<HTMLInputElement | null>;
  verify: ReactNode;
}) {
  return (
    <search
      className="z-20 flex flex-wrap items-center gap-2 rounded border border-line bg-subtle px-2 py-1.5 text-[12px] sm:sticky sm:top-11"
      data-testid="audit-filters"
    >
      <label className="flex items-center gap-1 max-sm:basis-full">
        <span className="sr-only">Kind</span>
        <select
          value={kind}
          onChange={(e) => onKind(e.target.value)}
          className="h-6 rounded border border-line bg-bg px-1 font-mono text-[12px] max-sm:w-full"
          data-testid="audit-kind"
        >
          <option value="">every kind</option>
          {kinds.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <TextFilter
        label="Principal: a key's id or name"
        value={text.principal}
        placeholder="Who: key id or name"
        onChange={(principal) => onText({ ...text, principal })}
        inputRef={principalInput}
        testId="audit-principal"
      />
      <TextFilter
        label="Target: a trace, session, key or rule id"
        value={text.target}
        placeholder="Target id"
        onChange={(target) => onText({ ...text, target })}
        testId="audit-target"
      />
      {filtered ? (
        <button
          type="button"
          onClick={onClear}
          className="inline-flex items-center gap-0.5 rounded px-1 text-fg-muted hover:bg-muted hover:text-fg"
          data-testid="audit-clear"
        >
          <X size={12} aria-hidden />
          Clear
        </button>
      ) : null}
      <span className="ml-auto flex flex-wrap items-center gap-2">
        <span data-keyboard-hint className="hidden text-fg-muted lg:inline">
          <kbd className="rounded border border-line bg-bg px-1 font-mono text-[11px]">/</kbd> filter ·{' '}
          <kbd className="rounded border border-line bg-bg px-1 font-mono text-[11px]">v</kbd> verify
        </span>
        {verify}
      </span>
    </search>
  );
}
