import type { z } from 'zod';
import { errorData } from './errors';
import { checkJsonSchema, isJsonSchemaInput, type JsonSchemaInput } from './json-schema-input';
import { truncateMiddle } from './truncate';
import type { ToolErrorData } from './types';

export interface FieldIssue {
  /** Dotted path to the field (`items.2.name`); empty for the whole object. */
  path: string;
  message: string;
  code: string;
}

export type Validated = { ok: true; value: unknown } | { ok: false; error: ToolErrorData };

/** A tool's input or output schema: zod, or JSON Schema (`jsonSchemaInput`) for tools from outside. */
export type ToolSchema<T = unknown> = z.ZodType<T> | JsonSchemaInput<T>;

/**
 * Stage 2: checks arguments against the tool's schema (zod, or JSON Schema through Ajv), one
 * issue per failing field. An object with unknown keys gives one issue per unknown field, naming
 * the fields the object takes, so the model can tell a typo from a field that does not exist.
 */
export function validateInput(toolName: string, schema: ToolSchema, value: unknown): Validated {
  if (isJsonSchemaInput(schema)) {
    const checked = checkJsonSchema(schema, value, toolName);
    return checked.ok ? checked : invalid(toolName, checked.issues);
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues: FieldIssue[] = parsed.error.issues.flatMap((issue): FieldIssue[] => {
    const at = issue.path.map(String);
    if (issue.code === 'invalid_key') {
      // "Invalid key in record" says nothing; the key's own issues say what is wrong with it.
      const message = issue.issues.map((inner) => inner.message).join('; ') || issue.message;
      return [{ path: at.join('.'), message, code: issue.code }];
    }
    if (issue.code !== 'unrecognized_keys') return [{ path: at.join('.'), message: issue.message, code: issue.code }];
    const known = knownKeysAt(schema, at);
    const owner = at.length > 0 ? at.join('.') : toolName;
    const takes = known && known.length > 0 ? `; ${owner} takes: ${known.join(', ')}` : '';
    return issue.keys.map((key) => ({
      path: [...at, key].join('.'),
      message: `Unknown field "${key}"${takes}`,
      code: issue.code,
    }));
  });
  return invalid(toolName, issues);
}

/** Characters of an issue's path and message the error's message quotes (a key can be a megabyte long). */
const QUOTED_ISSUE_CHARS = 1_000;
const quote = (text: string) =>
  text.length <= QUOTED_ISSUE_CHARS ? text : truncateMiddle(text, QUOTED_ISSUE_CHARS).text;

/**
 * INVALID_ARGUMENTS listing the first ten issues; all of them in `details.issues`, as far as the
 * error's bound keeps (see `bound-error.ts`: thousands of issues become the first ones and a note).
 */
function invalid(toolName: string, issues: FieldIssue[]): Validated {
  const listed = issues
    .slice(0, 10)
    .map((i) => `${quote(i.path) || '(arguments)'}: ${quote(i.message)}`)
    .join('; ');
  const more = issues.length > 10 ? ` (and ${issues.length - 10} more)` : '';
  return {
    ok: false,
    error: errorData('INVALID_ARGUMENTS', `Invalid arguments for ${toolName}: ${listed}${more}.`, {
      details: { issues },
      stage: 'validate',
    }),
  };
}

/** The field names of the object schema at `path`, looking through wrappers; null when unknown. */
function knownKeysAt(schema: z.ZodType, path: string[]): string[] | null {
  // biome-ignore lint/suspicious/noExplicitAny: zod's definitions differ per schema type.
  let def = (schema as any)._zod.def as Record<string, any>;
  let rest = path;
  for (let guard = 0; guard < 256; guard++) {
    if (def.innerType) def = def.innerType._zod.def;
    else if (def.type === 'pipe') def = def.in._zod.def;
    else if (def.type === 'object' && rest.length === 0) return Object.keys(def.shape);
    else if (def.type === 'object' && def.shape[rest[0] as string]) {
      def = def.shape[rest[0] as string]._zod.def;
      rest = rest.slice(1);
    } else if (def.type === 'array' && rest.length > 0) {
      def = def.element._zod.def;
      rest = rest.slice(1);
    } else if (def.type === 'record' && rest.length > 0) {
      def = def.valueType._zod.def;
      rest = rest.slice(1);
    } else return null;
  }
  return null;
}
