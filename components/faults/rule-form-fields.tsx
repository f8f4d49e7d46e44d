'use client';

import type { ReactNode } from 'react';
import type { FaultParamField } from '@/lib/ui/fault-kinds';

export const field =
  'h-7 rounded border border-line bg-bg px-1.5 font-mono text-[12px] outline-none focus:border-accent disabled:opacity-60';
export const invalid = 'border-red-500 dark:border-red-500';

/** A labelled form field with the server's complaint about it underneath. */
export function Field({
  label,
  error,
  id,
  className = '',
  children,
}: {
  label: string;
  error: string | undefined;
  id: string;
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
          className="w-0 min-w-full text-[12px] text-red-700 dark:text-red-300"
          data-testid={`fault-error-${id.split('--').at(-1)}`}
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

/** One parameter of a fault kind, as its type asks: number or text box, checkbox, choice. */
export function ParamInput({
  param,
  value,
  error,
  id,
  onChange,
}: {
  param: FaultParamField;
  value: string | boolean | undefined;
  error: string | undefined;
  id: string;
  onChange: (value: string | boolean) => void;
}) {
  const testId = `fault-param-${param.key}`;
  if (param.type === 'checkbox') {
    return (
      <label className="mt-[15px] flex h-7 items-center gap-1.5 text-[12px]">
        <input
          type="checkbox"
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
          data-testid={testId}
          {...errorProps(id, error)}
        />
        {param.label}
      </label>
    );
  }
  const input =
    param.type === 'select' ? (
      <select
        value={typeof value === 'string' && value !== '' ? value : (param.options?.[0] ?? '')}
        onChange={(e) => onChange(e.target.value)}
        className={`${field} ${error ? invalid : ''}`}
        data-testid={testId}
        {...errorProps(id, error)}
      >
        {param.options?.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    ) : (
      <input
        value={typeof value === 'string' ? value : ''}
        onChange={(e) => onChange(e.target.value)}
        inputMode={param.type === 'number' ? 'numeric' : undefined}
        placeholder={param.placeholder}
        required={param.required}
        className={`${field} ${param.type === 'number' ? 'w-28' : 'w-48'} ${error ? invalid : ''}`}
        data-testid={testId}
        spellCheck={false}
        autoComplete="off"
        {...errorProps(id, error)}
      />
    );
  return (
    <Field label={`${param.label}${param.required ? '' : ' (optional)'}`} error={error} id={id}>
      {input}
    </Field>
  );
}
