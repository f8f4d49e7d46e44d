import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FieldIssue } from './validate-input';

/**
 * A tool's input (or output) described by JSON Schema instead of zod: what upstream MCP servers
 * and other outside tools come with. Models get the schema as it is; the validate stage checks
 * arguments with Ajv, and reports each failing field with a path and a message like zod's.
 * Made by `jsonSchemaInput`; `T` is only what the tool's code may assume of a valid value.
 */
export interface JsonSchemaInput<T = unknown> {
  readonly kind: 'json-schema';
  /** The schema as given; models see it without `$schema`. */
  readonly schema: Readonly<Record<string, unknown>>;
  /** Never set: carries the type of a valid value. */
  readonly valueType?: T;
}

const DRAFT_2020 = /draft\/2020-12/;

// One validator per dialect for the whole process: compiling is the cost, a compiled schema is
// kept per JsonSchemaInput. `strict: false`: outside schemas carry keywords Ajv does not know
// (`title` variants, vendor extensions), which must not stop a tool from registering.
// `verbose` gives each error its schema and data, for messages that name what was expected.
const options = { allErrors: true, strict: false, verbose: true, validateFormats: true } as const;
let validators: { draft07: Ajv; draft2020: Ajv2020 } | null = null;

// ajv-formats is CommonJS with a default export; bundlers and Node's ESM loader disagree on where it lands.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv | Ajv2020,
) => void;

function validatorFor(schema: Readonly<Record<string, unknown>>): Ajv | Ajv2020 {
  if (!validators) {
    const draft07 = new Ajv(options);
    const draft2020 = new Ajv2020(options);
    addFormats(draft07);
    addFormats(draft2020);
    validators = { draft07, draft2020 };
  }
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  return DRAFT_2020.test(dialect) ? validators.draft2020 : validators.draft07;
}

const compiled = new WeakMap<JsonSchemaInput, ValidateFunction>();

// Validators that stop at the first error, for arguments too large to check field by field in
// bounded time (see `validateInput`): `allErrors` makes Ajv report every failing element of an
// array, which for half a million of them took a second or two of the event loop.
const firstErrorOptions = { ...options, allErrors: false } as const;
let firstErrorValidators: { draft07: Ajv; draft2020: Ajv2020 } | null = null;
const compiledFirst = new WeakMap<JsonSchemaInput, ValidateFunction>();

function compileFirstError(input: JsonSchemaInput): ValidateFunction {
  let validate = compiledFirst.get(input);
  if (!validate) {
    if (!firstErrorValidators) {
      const draft07 = new Ajv(firstErrorOptions);
      const draft2020 = new Ajv2020(firstErrorOptions);
      addFormats(draft07);
      addFormats(draft2020);
      firstErrorValidators = { draft07, draft2020 };
    }
    const { $id: _id, ...schema } = input.schema;
    const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
    const ajv = DRAFT_2020.test(dialect) ? firstErrorValidators.draft2020 : firstErrorValidators.draft07;
    validate = ajv.compile(schema);
    compiledFirst.set(input, validate);
  }
  return validate;
}

/**
 * Checks `value` against the schema up to its first failing field: in time linear in the value
 * however many of its fields fail (see `checkJsonSchema` for the one listing every one).
 */
export function checkJsonSchemaFirst(
  input: JsonSchemaInput,
  value: unknown,
  toolName: string,
): { ok: true; value: unknown } | { ok: false; issues: FieldIssue[] } {
  const validate = compileFirstError(input);
  if (validate(value)) return { ok: true, value };
  return { ok: false, issues: issuesOf(validate.errors ?? [], toolName) };
}

function compile(input: JsonSchemaInput): ValidateFunction {
  let validate = compiled.get(input);
  if (!validate) {
    // An `$id` would be registered globally and clash with the next schema using it: compile a copy without.
    const { $id: _id, ...schema } = input.schema;
    validate = validatorFor(schema).compile(schema);
    compiled.set(input, validate);
  }
  return validate;
}

/**
 * Wraps a JSON Schema as a tool's input or output schema. The schema is compiled at once, so a
 * tool with a schema Ajv cannot read fails where it is defined, with Ajv's reason.
 * @example defineTool({ name: 'echo', inputSchema: jsonSchemaInput({ type: 'object', properties: { text: { type: 'string' } } }), … })
 */
export function jsonSchemaInput<T = unknown>(schema: Record<string, unknown>): JsonSchemaInput<T> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new Error('A JSON Schema must be an object');
  }
  const input: JsonSchemaInput<T> = { kind: 'json-schema', schema };
  try {
    compile(input);
  } catch (error) {
    throw new Error(`Invalid JSON Schema: ${error instanceof Error ? error.message : String(error)}`);
  }
  return input;
}

/** Whether a tool's schema is a JSON Schema (else it is zod). */
export function isJsonSchemaInput(schema: unknown): schema is JsonSchemaInput {
  return typeof schema === 'object' && schema !== null && (schema as { kind?: unknown }).kind === 'json-schema';
}

/** Checks `value` against the schema: the value itself when valid (JSON Schema does not transform), or one issue per failing field. */
export function checkJsonSchema(
  input: JsonSchemaInput,
  value: unknown,
  toolName: string,
): { ok: true; value: unknown } | { ok: false; issues: FieldIssue[] } {
  const validate = compile(input);
  if (validate(value)) return { ok: true, value };
  return { ok: false, issues: issuesOf(validate.errors ?? [], toolName) };
}

/** `/items/0/na~1me` → `items.0.na/me`. */
function dottedPath(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * Ajv's errors as fields and messages a model can act on: the missing or unknown field named in
 * the path, the types expected and received, the allowed values. Errors of the branches of an
 * `anyOf`/`oneOf` are folded into the one saying no branch matched, and duplicates are dropped.
 */
function issuesOf(errors: ErrorObject[], toolName: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  const branches = errors
    .filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf')
    .map((error) => `${error.schemaPath}/`);
  for (const error of errors) {
    if (branches.some((prefix) => error.schemaPath.startsWith(prefix))) continue;
    // "property name must be valid" wraps the errors of the key itself, which say why.
    if (error.keyword === 'propertyNames') continue;
    const issue = error.propertyName === undefined ? issueOf(error, toolName) : keyIssueOf(error);
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

/** An object key that breaks `propertyNames`, at the key's own path (`headers.` for an empty one). */
function keyIssueOf(error: ErrorObject): FieldIssue {
  const key = String(error.propertyName);
  const path = [...dottedPath(error.instancePath), key].join('.');
  if (key === '') return { path, message: 'A name cannot be empty', code: 'invalid_key' };
  return {
    path,
    message: `"${key}" is not a valid name: ${limitMessage(error) ?? error.message}`,
    code: 'invalid_key',
  };
}

const plural = (count: number, one: string) => `${count} ${one}${count === 1 ? '' : 's'}`;

/** Bounds in words (Ajv says "must NOT have fewer than 1 characters"); null for other keywords. */
function limitMessage(error: ErrorObject): string | null {
  const limit = Number((error.params as { limit?: unknown }).limit);
  switch (error.keyword) {
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must have at least ${plural(limit, 'character')}`;
    case 'maxLength':
      return `must have at most ${plural(limit, 'character')}`;
    case 'minItems':
      return `must have at least ${plural(limit, 'item')}`;
    case 'maxItems':
      return `must have at most ${plural(limit, 'item')}`;
    case 'minimum':
      return `must be at least ${limit}`;
    case 'maximum':
      return `must be at most ${limit}`;
    case 'exclusiveMinimum':
      return `must be greater than ${limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${limit}`;
    default:
      return null;
  }
}

function issueOf(error: ErrorObject, toolName: string): FieldIssue {
  const at = dottedPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const field = String(params.missingProperty);
      return { path: [...at, field].join('.'), message: `Required field "${field}" is missing`, code: 'required' };
    }
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      const properties = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
      const known = properties ? Object.keys(properties) : [];
      const owner = at.length > 0 ? at.join('.') : toolName;
      const takes = known.length > 0 ? `; ${owner} takes: ${known.join(', ')}` : '';
      return { path: [...at, field].join('.'), message: `Unknown field "${field}"${takes}`, code: 'unrecognized_keys' };
    }
    case 'type':
      return {
        path: at.join('.'),
        message: `Expected ${String(params.type).replaceAll(',', ' or ')}, received ${kindOf(error.data)}`,
        code: 'invalid_type',
      };
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ');
      return { path: at.join('.'), message: `Expected one of: ${allowed}`, code: 'invalid_value' };
    }
    case 'const':
      return { path: at.join('.'), message: `Expected ${JSON.stringify(params.allowedValue)}`, code: 'invalid_value' };
    case 'anyOf':
    case 'oneOf':
      return { path: at.join('.'), message: 'Matches none of the allowed shapes', code: 'invalid_union' };
    default:
      return {
        path: at.join('.'),
        message: capitalised(limitMessage(error) ?? error.message ?? 'Invalid value'),
        code: error.keyword,
      };
  }
}
