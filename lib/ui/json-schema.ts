import type { FieldIssue } from './json-issues';

/** The subset of JSON Schema (2020-12) that tool input schemas derived from zod use. */
export interface JsonSchema {
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

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    default:
      return true;
  }
}

/**
 * Checks a value against a schema for inline hints in the playground (the executor's zod
 * validation stays the judge). Issues use the executor's dotted paths.
 */
export function validateAgainstSchema(schema: JsonSchema, value: unknown, path: string[] = []): FieldIssue[] {
  const at = path.join('.');
  const issue = (message: string, code: string): FieldIssue[] => [{ path: at, message, code }];
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    return variants.some((v) => validateAgainstSchema(v, value, path).length === 0)
      ? []
      : issue('Matches none of the allowed forms', 'invalid_union');
  }
  if (schema.const !== undefined && value !== schema.const)
    return issue(`Must be ${JSON.stringify(schema.const)}`, 'invalid_value');
  if (schema.enum && !schema.enum.some((option) => option === value)) {
    return issue(`Must be one of ${schema.enum.map((o) => JSON.stringify(o)).join(', ')}`, 'invalid_value');
  }
  const types = typesOf(schema);
  if (types.length > 0 && !types.some((t) => typeMatches(t, value))) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    return issue(`Expected ${types.join(' or ')}, got ${got}`, 'invalid_type');
  }
  const issues: FieldIssue[] = [];
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) {
      issues.push(
        ...issue(
          schema.minLength === 1 ? 'Required: must not be empty' : `At least ${schema.minLength} characters`,
          'too_small',
        ),
      );
    }
    if (schema.maxLength !== undefined && value.length > schema.maxLength) {
      issues.push(...issue(`At most ${schema.maxLength} characters`, 'too_big'));
    }
    if (schema.pattern) {
      try {
        if (!new RegExp(schema.pattern, 'u').test(value))
          issues.push(...issue(`Must match ${schema.pattern}`, 'invalid_format'));
      } catch {
        // a pattern JavaScript cannot compile is left to the server
      }
    }
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum)
      issues.push(...issue(`At least ${schema.minimum}`, 'too_small'));
    if (schema.maximum !== undefined && value > schema.maximum)
      issues.push(...issue(`At most ${schema.maximum}`, 'too_big'));
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) {
      issues.push(...issue(`Greater than ${schema.exclusiveMinimum}`, 'too_small'));
    }
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) {
      issues.push(...issue(`Less than ${schema.exclusiveMaximum}`, 'too_big'));
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      issues.push(...issue(`At least ${schema.minItems} items`, 'too_small'));
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      issues.push(...issue(`At most ${schema.maxItems} items`, 'too_big'));
    if (schema.items)
      for (const [i, item] of value.entries())
        issues.push(...validateAgainstSchema(schema.items, item, [...path, String(i)]));
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (record[key] === undefined)
        issues.push({ path: [...path, key].join('.'), message: 'Required', code: 'invalid_type' });
    }
    if (schema.propertyNames) {
      for (const key of Object.keys(record)) {
        const problem = nameProblem(schema.propertyNames, key);
        if (problem) issues.push({ path: [...path, key].join('.'), message: problem, code: 'invalid_key' });
      }
    }
    for (const [key, child] of Object.entries(record)) {
      if (child === undefined) continue;
      const childSchema = schema.properties?.[key];
      if (childSchema) issues.push(...validateAgainstSchema(childSchema, child, [...path, key]));
      else if (schema.additionalProperties === false) {
        const known = Object.keys(schema.properties ?? {});
        const takes = known.length > 0 ? `; the fields are: ${known.join(', ')}` : '';
        issues.push({
          path: [...path, key].join('.'),
          message: `Unknown field "${key}"${takes}`,
          code: 'unrecognized_keys',
        });
      } else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        issues.push(...validateAgainstSchema(schema.additionalProperties, child, [...path, key]));
      }
    }
  }
  return issues;
}

/** What is wrong with an object key under `propertyNames` (length and pattern), or null. */
function nameProblem(schema: JsonSchema, key: string): string | null {
  if (schema.minLength !== undefined && key.length < schema.minLength) {
    return schema.minLength === 1 ? 'A name cannot be empty' : `Names need at least ${schema.minLength} characters`;
  }
  if (schema.maxLength !== undefined && key.length > schema.maxLength) {
    return `Names have at most ${schema.maxLength} characters`;
  }
  if (schema.pattern) {
    try {
      if (!new RegExp(schema.pattern, 'u').test(key))
        return `"${key}" is not a valid name: must match ${schema.pattern}`;
    } catch {
      // a pattern JavaScript cannot compile is left to the server
    }
  }
  return null;
}
