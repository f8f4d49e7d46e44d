'use client';

import type { FaultParamField } from '@/lib/ui/fault-kinds';
import { errorProps, Field, invalid } from '../form-parts';

export const field =
  'h-7 rounded border border-line bg-bg px-1.5 font-mono text-[12px] outline-none focus:border-accent disabled:opacity-60';
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
    <Field
      label={`${param.label}${param.required ? '' : ' (optional)'}`}
      error={error}
      id={id}
      errorTestId={`fault-error-${id.split('--').at(-1)}`}
    >
      {input}
    </Field>
  );
}
