'use client';

import { Lock, Plus, Trash2 } from 'lucide-react';
import { useId, useState } from 'react';
import { type FieldIssue, REDACTED_MARK } from '@/lib/ui/json-issues';
import { fieldShape, initialValue, type JsonSchema } from '@/lib/ui/json-schema';

/** A field's look without its width: each field gives one (`w-full` by default, see `input`). */
const field =
  'h-7 rounded border border-line bg-bg px-1.5 text-[13px] text-fg aria-[invalid=true]:border-red-500 aria-[invalid=true]:bg-red-50 dark:aria-[invalid=true]:bg-red-950/40';
const input = `${field} w-full`;

interface FieldProps {
  name: string;
  schema: JsonSchema;
  value: unknown;
  required: boolean;
  path: string[];
  issues: Map<string, FieldIssue[]>;
  onChange: (value: unknown) => void;
}

function Issues({ id, list }: { id: string; list: FieldIssue[] }) {
  if (list.length === 0) return null;
  return (
    <p id={id} className="text-xs text-red-700 dark:text-red-300" data-testid="form-issue">
      {list.map((i) => i.message).join('; ')}
    </p>
  );
}

function Label({
  htmlFor,
  name,
  schema,
  required,
}: {
  htmlFor?: string;
  name: string;
  schema: JsonSchema;
  required: boolean;
}) {
  return (
    <span className="flex flex-wrap items-baseline gap-x-1.5">
      {htmlFor ? (
        <label htmlFor={htmlFor} className="font-mono text-[12px] font-medium">
          {name}
        </label>
      ) : (
        <span className="font-mono text-[12px] font-medium">{name}</span>
      )}
      <span className="text-[11px] text-fg-muted">
        {required ? <span className="text-red-700 dark:text-red-300">required</span> : 'optional'}
        {schema.default !== undefined && <> · default {JSON.stringify(schema.default)}</>}
      </span>
    </span>
  );
}

/** A masked secret in a recorded call's arguments: the server keeps its recorded value unless a new one is typed. */
function KeptAsRecorded({ value }: { value: unknown }) {
  if (typeof value !== 'string' || !value.includes(REDACTED_MARK)) return null;
  return (
    <p
      className="flex items-center gap-1 text-[11px] text-amber-800 dark:text-amber-300"
      data-testid="kept-as-recorded"
      title="The value was redacted before storage. Left as shown, the recorded value is used; type the whole value to replace it."
    >
      <Lock size={10} aria-hidden /> masked · kept as recorded unless you type a new value
    </p>
  );
}

/** Editor for a value the form cannot express (unions, free objects): JSON text, parsed on every valid edit. */
function JsonField({
  id,
  value,
  onChange,
  invalid,
  describedBy,
}: {
  id: string;
  value: unknown;
  onChange: (v: unknown) => void;
  invalid: boolean;
  describedBy?: string;
}) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value, null, 2));
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <textarea
        id={id}
        value={text}
        rows={3}
        spellCheck={false}
        aria-invalid={invalid || error !== null}
        aria-describedby={describedBy}
        className={`${input} h-auto py-1 font-mono text-[12px]`}
        placeholder="JSON value"
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value.trim() === '') {
            setError(null);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(e.target.value));
            setError(null);
          } catch (err) {
            setError((err as Error).message);
          }
        }}
      />
      {error && <p className="text-xs text-red-700 dark:text-red-300">Not valid JSON yet: {error}</p>}
    </>
  );
}

/** One field of the generated form, chosen by its schema; recursive for arrays and objects. */
function Field({ name, schema, value, required, path, issues, onChange }: FieldProps) {
  const id = useId();
  const shape = fieldShape(schema);
  const dotted = path.join('.');
  const own = issues.get(dotted) ?? [];
  const invalid = own.length > 0;
  const issueId = `${id}-issues`;
  const describedBy =
    [schema.description ? `${id}-desc` : null, invalid ? issueId : null].filter(Boolean).join(' ') || undefined;
  const s = shape.schema;
  const common = { id, 'aria-invalid': invalid, 'aria-describedby': describedBy, 'data-field': dotted } as const;
  let editor: React.ReactNode;

  switch (shape.kind) {
    case 'string': {
      const long = /^(content|body|text|script|source|code|prompt)$/i.test(name);
      const text = typeof value === 'string' ? value : '';
      const change = (v: string) => onChange(v === '' && !required ? undefined : v);
      editor = long ? (
        <textarea
          {...common}
          value={text}
          rows={4}
          className={`${input} h-auto py-1 font-mono text-[12px]`}
          onChange={(e) => change(e.target.value)}
        />
      ) : (
        <input
          {...common}
          type="text"
          value={text}
          className={input}
          placeholder={s.format ?? ''}
          onChange={(e) => change(e.target.value)}
        />
      );
      break;
    }
    case 'number':
    case 'integer':
      editor = (
        <input
          {...common}
          type="number"
          step={shape.kind === 'integer' ? 1 : 'any'}
          min={s.minimum}
          max={s.maximum}
          value={typeof value === 'number' ? value : ''}
          className={`${field} w-40`}
          onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.valueAsNumber)}
        />
      );
      break;
    case 'boolean':
      editor =
        required || s.default !== undefined ? (
          <input
            {...common}
            type="checkbox"
            checked={value === true}
            className="size-4"
            onChange={(e) => onChange(e.target.checked)}
          />
        ) : (
          <select
            {...common}
            value={value === undefined ? '' : String(value)}
            className={`${field} w-32`}
            onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value === 'true')}
          >
            <option value="">(not set)</option>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        );
      break;
    case 'enum': {
      const options = shape.options ?? [];
      const index = options.indexOf(value);
      editor = (
        <select
          {...common}
          value={index < 0 ? '' : String(index)}
          className={`${field} w-auto min-w-32`}
          onChange={(e) => onChange(e.target.value === '' ? undefined : options[Number(e.target.value)])}
        >
          {(!required || index < 0) && <option value="">(not set)</option>}
          {options.map((option, i) => (
            <option key={JSON.stringify(option)} value={i}>
              {typeof option === 'string' ? option : JSON.stringify(option)}
            </option>
          ))}
        </select>
      );
      break;
    }
    case 'array': {
      const items = Array.isArray(value) ? value : [];
      const itemSchema = s.items ?? {};
      editor = (
        <div className="flex flex-col gap-1.5 border-l-2 border-line pl-3">
          {items.map((item, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: items have no identity but their position.
            <div key={i} className="flex items-start gap-1.5">
              <div className="min-w-0 flex-1">
                <Field
                  name={`${name}[${i}]`}
                  schema={itemSchema}
                  value={item}
                  required
                  path={[...path, String(i)]}
                  issues={issues}
                  onChange={(v) => onChange(items.map((old, j) => (j === i ? v : old)))}
                />
              </div>
              <button
                type="button"
                className="mt-5 rounded p-1 text-fg-muted hover:bg-muted hover:text-fg"
                aria-label={`Remove ${name}[${i}]`}
                onClick={() => onChange(items.filter((_, j) => j !== i))}
              >
                <Trash2 size={13} aria-hidden />
              </button>
            </div>
          ))}
          <button
            type="button"
            className="inline-flex w-fit items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs hover:bg-muted"
            onClick={() => onChange([...items, initialValue(itemSchema)])}
            disabled={s.maxItems !== undefined && items.length >= s.maxItems}
          >
            <Plus size={12} aria-hidden /> Add item
          </button>
        </div>
      );
      break;
    }
    case 'object':
      editor =
        value === undefined || value === null ? (
          <button
            type="button"
            className="inline-flex w-fit items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs hover:bg-muted"
            onClick={() => onChange(initialValue(s) ?? {})}
          >
            <Plus size={12} aria-hidden /> Set {name}
          </button>
        ) : (
          <div className="flex flex-col gap-1 border-l-2 border-line pl-3">
            <ObjectFields schema={s} value={value} path={path} issues={issues} onChange={onChange} />
            {!required && (
              <button
                type="button"
                className="inline-flex w-fit items-center gap-1 text-[11px] text-fg-muted underline"
                onClick={() => onChange(undefined)}
              >
                Remove {name}
              </button>
            )}
          </div>
        );
      break;
    case 'record': {
      const entries = Object.entries((value as Record<string, unknown>) ?? {});
      editor = (
        <div className="flex flex-col gap-1 border-l-2 border-line pl-3">
          {entries.map(([key, v], i) => {
            const entryIssues = issues.get([...path, key].join('.')) ?? [];
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: keys are edited in place, so the index is the identity.
              <div key={i} className="flex flex-col gap-0.5">
                <div className="flex items-center gap-1">
                  <input
                    aria-label={`${name} key ${i + 1}`}
                    aria-invalid={entryIssues.length > 0}
                    aria-describedby={entryIssues.length > 0 ? `${id}-entry-${i}` : undefined}
                    data-field={`${dotted}.${key}`}
                    value={key}
                    className={`${field} w-40 font-mono`}
                    onChange={(e) =>
                      onChange(Object.fromEntries(entries.map(([k, x], j) => (j === i ? [e.target.value, x] : [k, x]))))
                    }
                  />
                  <span className="text-fg-muted">:</span>
                  <input
                    aria-label={`${name} value ${i + 1}`}
                    value={typeof v === 'string' ? v : JSON.stringify(v)}
                    className={input}
                    onChange={(e) =>
                      onChange(Object.fromEntries(entries.map(([k, x], j) => (j === i ? [k, e.target.value] : [k, x]))))
                    }
                  />
                  <button
                    type="button"
                    className="rounded p-1 text-fg-muted hover:bg-muted"
                    aria-label={`Remove ${name} entry ${key}`}
                    onClick={() => {
                      const next = Object.fromEntries(entries.filter((_, j) => j !== i));
                      onChange(Object.keys(next).length === 0 && !required ? undefined : next);
                    }}
                  >
                    <Trash2 size={13} aria-hidden />
                  </button>
                </div>
                <KeptAsRecorded value={v} />
                <Issues id={`${id}-entry-${i}`} list={entryIssues} />
              </div>
            );
          })}
          <button
            type="button"
            className="inline-flex w-fit items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs hover:bg-muted"
            onClick={() =>
              onChange({
                ...Object.fromEntries(entries),
                [entries.some(([k]) => k === '') ? `key${entries.length}` : '']: '',
              })
            }
          >
            <Plus size={12} aria-hidden /> Add entry
          </button>
        </div>
      );
      break;
    }
    default:
      editor = <JsonField id={id} value={value} onChange={onChange} invalid={invalid} describedBy={describedBy} />;
  }

  const labelled = shape.kind !== 'array' && shape.kind !== 'object' && shape.kind !== 'record';
  const Wrapper = labelled ? 'div' : 'fieldset';
  return (
    <Wrapper className="flex min-w-0 flex-col gap-0.5" data-testid="form-field" data-path={dotted}>
      {labelled ? (
        <Label htmlFor={id} name={name} schema={s} required={required} />
      ) : (
        <legend>
          <Label name={name} schema={s} required={required} />
        </legend>
      )}
      {schema.description && (
        <p id={`${id}-desc`} className="text-[11px] text-fg-muted">
          {schema.description}
        </p>
      )}
      {editor}
      {shape.kind === 'string' && <KeptAsRecorded value={value} />}
      {shape.nullable && value !== null && (
        <button type="button" className="w-fit text-[11px] text-fg-muted underline" onClick={() => onChange(null)}>
          set to null
        </button>
      )}
      <Issues id={issueId} list={own} />
    </Wrapper>
  );
}

/** The fields of an object schema, required ones first. */
export function ObjectFields({
  schema,
  value,
  path,
  issues,
  onChange,
}: {
  schema: JsonSchema;
  value: unknown;
  path: string[];
  issues: Map<string, FieldIssue[]>;
  onChange: (value: unknown) => void;
}) {
  const record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const required = new Set(schema.required ?? []);
  const keys = Object.keys(schema.properties ?? {}).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  return (
    <div className="flex flex-col gap-2.5">
      {keys.map((key) => (
        <Field
          key={key}
          name={key}
          schema={schema.properties![key]!}
          value={record[key]}
          required={required.has(key)}
          path={[...path, key]}
          issues={issues}
          onChange={(v) => {
            const next = { ...record };
            if (v === undefined) delete next[key];
            else next[key] = v;
            onChange(next);
          }}
        />
      ))}
      {keys.length === 0 && <p className="text-xs italic text-fg-muted">This tool takes no arguments.</p>}
      {Object.keys(record)
        .filter((key) => !Object.hasOwn(schema.properties ?? {}, key))
        .map((key) => {
          const list = issues.get([...path, key].join('.')) ?? [];
          // Fields the schema does not name have no editor: their issues (unknown field) are listed here.
          return list.length === 0 ? null : (
            <div
              key={key}
              className="flex flex-col gap-0.5"
              data-testid="unknown-field"
              data-path={[...path, key].join('.')}
            >
              <span className="font-mono text-[12px] font-medium">{key}</span>
              <Issues id={`unknown-${[...path, key].join('-')}`} list={list} />
            </div>
          );
        })}
    </div>
  );
}
