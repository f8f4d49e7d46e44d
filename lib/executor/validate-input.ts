import { z } from 'zod';
import { errorData } from './errors';
import {
  checkJsonSchema,
  checkJsonSchemaFirst,
  isJsonSchemaInput,
  type JsonSchemaInput,
  jsonSchemaInput,
} from './json-schema-input';
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
 * Arguments longer than this (as JSON text) are checked up to their first failing field, not
 * field by field: zod and Ajv make an issue for every failing element, and half a million of them
 * (a 1 MiB array of the wrong type) took 0.5–2 s of the event loop.
 */
export const LARGE_ARGUMENTS_CHARS = 64 * 1024;
/** Issues of a schema turned into field issues at most: the error's bound keeps fewer anyway. */
const MAX_FIELD_ISSUES = 200;

/**
 * Stage 2: checks arguments against the tool's schema (zod, or JSON Schema through Ajv), one
 * issue per failing field. An object with unknown keys gives one issue per unknown field, naming
 * the fields the object takes, so the model can tell a typo from a field that does not exist.
 * Arguments over LARGE_ARGUMENTS_CHARS (`chars`, their JSON length, when the caller knows it) are
 * checked against the JSON Schema up to the first failing field first (a zod schema through its
 * JSON Schema, when it has one); only when that passes does zod check them.
 */
export function validateInput(toolName: string, schema: ToolSchema, value: unknown, chars = 0): Validated {
  const large = chars > LARGE_ARGUMENTS_CHARS;
  if (isJsonSchemaInput(schema)) {
    const checked = large ? checkJsonSchemaFirst(schema, value, toolName) : checkJsonSchema(schema, value, toolName);
    return checked.ok ? checked : invalid(toolName, checked.issues, large ? chars : 0);
  }
  if (large) {
    const gate = jsonSchemaOf(schema);
    const checked = gate && checkJsonSchemaFirst(gate, value, toolName);
    if (checked && !checked.ok) return invalid(toolName, checked.issues, chars);
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const all = parsed.error.issues;
  const issues: FieldIssue[] = all.slice(0, MAX_FIELD_ISSUES).flatMap((issue): FieldIssue[] => {
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
  return invalid(toolName, issues, 0, all.length - Math.min(all.length, MAX_FIELD_ISSUES));
}

/** The JSON Schema of a zod schema, for the first-failing-field check; null when it has none. */
const gates = new WeakMap<z.ZodType, JsonSchemaInput | null>();
function jsonSchemaOf(schema: z.ZodType): JsonSchemaInput | null {
  let gate = gates.get(schema);
  if (gate === undefined) {
    try {
      // Formats are left to zod (its patterns are not Ajv's): the check only spares zod the huge
      // cases. Ajv counts a string's length in code points, zod in UTF-16 units: a `min(n)` over 1
      // can refuse here a string of astral characters zod takes (arguments over 64 KiB only).
      const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' }) as Record<string, unknown>;
      gate = jsonSchemaInput(withoutFormats(json));
    } catch {
      gate = null;
    }
    gates.set(schema, gate);
  }
  return gate;
}

/** A JSON Schema without its `format` keywords (a copy). */
function withoutFormats(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema), (key, value) => (key === 'format' ? undefined : value));
}

/** Characters of an issue's path and message the error's message quotes (a key can be a megabyte long). */
const QUOTED_ISSUE_CHARS = 1_000;
const quote = (text: string) =>
  text.length <= QUOTED_ISSUE_CHARS ? text : truncateMiddle(text, QUOTED_ISSUE_CHARS).text;

/**
 * INVALID_ARGUMENTS listing the first ten issues; all of them in `details.issues`, as far as the
 * error's bound keeps (see `bound-error.ts`: thousands of issues become the first ones and a note),
 * `unlisted` more counted. Large arguments (`largeChars`) were checked up to their first issue:
 * the message and `details.checked` say so.
 */
function invalid(toolName: string, issues: FieldIssue[], largeChars = 0, unlisted = 0): Validated {
  const listed = issues
    .slice(0, 10)
    .map((i) => `${quote(i.path) || '(arguments)'}: ${quote(i.message)}`)
    .join('; ');
  const rest = issues.length - Math.min(issues.length, 10) + unlisted;
  const more = rest > 0 ? ` (and ${rest} more)` : '';
  const first = largeChars > 0 ? ` (the arguments are ${largeChars} characters: checked up to their first issue)` : '';
  return {
    ok: false,
    error: errorData('INVALID_ARGUMENTS', `Invalid arguments for ${toolName}: ${listed}${more}${first}.`, {
      // The counts first: a cut (see `bound-error.ts`) keeps the first entries.
      details: {
        ...(unlisted > 0 ? { issues_not_listed: unlisted } : {}),
        ...(largeChars > 0 ? { checked: 'up to the first issue' } : {}),
        issues,
      },
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
