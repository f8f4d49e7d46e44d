import { checkJsonSchema, type JsonSchemaInput, jsonSchemaInput } from '../executor/json-schema-input';
import type { FieldIssue } from './json-issues';

/** The subset of JSON Schema (2020-12) that tool input schemas derived from zod use. */
export interface JsonSchema {
  /** The dialect (a JSON Schema tool's own; zod-derived schemas have none). */
  $schema?: string;
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  /** What every key of an object must be (a record's keys: header names...). */
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minItems?: number;
  maxItems?: number;
}

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'array' | 'object' | 'record' | 'json';

export interface FieldShape {
  kind: FieldKind;
  /** The schema of the non-null branch, when the field is nullable. */
  schema: JsonSchema;
  nullable: boolean;
  options?: unknown[];
}

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  return schema.type ? [schema.type] : [];
}

/** Decides which editor a schema gets; anything the form cannot express is edited as raw JSON. */
export function fieldShape(schema: JsonSchema): FieldShape {
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    if (variants.every((v) => v.const !== undefined)) {
      return { kind: 'enum', schema, nullable: false, options: variants.map((v) => v.const) };
    }
    const nonNull = variants.filter((v) => !typesOf(v).includes('null') || typesOf(v).length > 1);
    if (nonNull.length === 1 && variants.length === 2) {
      const inner = fieldShape({ ...nonNull[0], description: schema.description, default: schema.default });
      return { ...inner, nullable: true };
    }
    return { kind: 'json', schema, nullable: false };
  }
  if (schema.enum) return { kind: 'enum', schema, nullable: schema.enum.includes(null), options: schema.enum };
  if (schema.const !== undefined) return { kind: 'enum', schema, nullable: false, options: [schema.const] };
  const types = typesOf(schema);
  const nullable = types.includes('null');
  const main = types.filter((t) => t !== 'null');
  if (main.length !== 1) return { kind: 'json', schema, nullable };
  const type = main[0];
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') {
    return { kind: type, schema, nullable };
  }
  if (type === 'array') return { kind: schema.items ? 'array' : 'json', schema, nullable };
  if (type === 'object') {
    if (schema.properties) return { kind: 'object', schema, nullable };
    const extra = schema.additionalProperties;
    if (extra && typeof extra === 'object' && fieldShape(extra).kind === 'string')
      return { kind: 'record', schema, nullable };
    return { kind: 'json', schema, nullable };
  }
  return { kind: 'json', schema, nullable };
}

/** A starting value: defaults where given, required fields filled with empty values of their type. */
export function initialValue(schema: JsonSchema): unknown {
  if (schema.default !== undefined) return structuredClone(schema.default);
  const shape = fieldShape(schema);
  switch (shape.kind) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set(shape.schema.required ?? []);
      for (const [key, child] of Object.entries(shape.schema.properties ?? {})) {
        if (child.default !== undefined) out[key] = structuredClone(child.default);
        else if (required.has(key)) out[key] = initialValue(child);
      }
      return out;
    }
    case 'array':
      return [];
    case 'record':
      return {};
    case 'string':
      return '';
    case 'boolean':
      return false;
    case 'enum':
      return shape.options?.[0];
    default:
      return shape.nullable ? null : undefined;
  }
}

const compiled = new WeakMap<JsonSchema, JsonSchemaInput | null>();

/** The schema compiled once (per schema object); null when Ajv cannot read it. */
function compiledOf(schema: JsonSchema): JsonSchemaInput | null {
  let input = compiled.get(schema);
  if (input === undefined) {
    try {
      input = jsonSchemaInput(schema as Record<string, unknown>);
    } catch {
      input = null;
    }
    compiled.set(schema, input);
  }
  return input;
}

/**
 * Checks a value against a schema for inline hints (playground, approval and replay editors)
 * with the server's own validator (Ajv, `checkJsonSchema`): the same issues, paths and messages
 * as the validate stage gives a tool described by JSON Schema. `subject` names the tool in
 * "Unknown field …; <subject> takes: …". A schema Ajv cannot read gives no hints: the server judges.
 * @example validateAgainstSchema(schema, { expression: '' }, 'calculator') // [{ path: 'expression', message: 'Must not be empty', … }]
 */
export function validateAgainstSchema(schema: JsonSchema, value: unknown, subject = 'this tool'): FieldIssue[] {
  const input = compiledOf(schema);
  if (!input) return [];
  const checked = checkJsonSchema(input, value, subject);
  return checked.ok ? [] : checked.issues;
}
