import { describe, expect, it } from 'vitest';
import { jsonSchemaInput } from '../executor/json-schema-input';
import { validateInput } from '../executor/validate-input';
import { fieldShape, initialValue, type JsonSchema, validateAgainstSchema } from './json-schema';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    expression: { type: 'string', minLength: 1 },
    precision: { type: 'integer', minimum: 0, maximum: 20 },
    mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
    items: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } }, required: ['k'] } },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    v: { type: ['number', 'null'] },
    method: {
      anyOf: [
        { type: 'string', const: 'GET' },
        { type: 'string', const: 'POST' },
      ],
    },
  },
  required: ['expression', 'items'],
  additionalProperties: false,
};

describe('fieldShape', () => {
  it('picks an editor per schema', () => {
    const p = schema.properties!;
    expect(fieldShape(p.expression!).kind).toBe('string');
    expect(fieldShape(p.precision!).kind).toBe('integer');
    expect(fieldShape(p.mode!).kind).toBe('enum');
    expect(fieldShape(p.items!).kind).toBe('array');
    expect(fieldShape(p.headers!).kind).toBe('record');
    expect(fieldShape(p.v!)).toMatchObject({ kind: 'number', nullable: true });
    expect(fieldShape(p.method!)).toMatchObject({ kind: 'enum', options: ['GET', 'POST'] });
    expect(fieldShape({ anyOf: [{ type: 'string' }, { type: 'number' }] }).kind).toBe('json');
  });
});

describe('initialValue', () => {
  it('fills defaults and required fields only', () => {
    expect(initialValue(schema)).toEqual({ expression: '', mode: 'a', items: [] });
  });
});

describe("validateAgainstSchema (the server's Ajv check)", () => {
  it('accepts a valid value', () => {
    expect(validateAgainstSchema(schema, { expression: '1+1', items: [{ k: 'x' }], method: 'GET' })).toEqual([]);
  });

  it('reports issues with dotted paths and messages in words', () => {
    const issues = validateAgainstSchema(
      schema,
      { expression: '', precision: 2.5, items: [{}], extra: 1, method: 'PUT' },
      'calc',
    );
    expect(issues).toEqual([
      {
        path: 'extra',
        message: expect.stringMatching(/^Unknown field "extra"; calc takes: expression, /),
        code: 'unrecognized_keys',
      },
      { path: 'expression', message: 'Must not be empty', code: 'minLength' },
      { path: 'precision', message: 'Expected integer, received number', code: 'invalid_type' },
      { path: 'items.0.k', message: 'Required field "k" is missing', code: 'required' },
      { path: 'method', message: 'Matches none of the allowed shapes', code: 'invalid_union' },
    ]);
    expect(validateAgainstSchema(schema, { expression: 'x', items: [], precision: 21 })).toEqual([
      { path: 'precision', message: 'Must be at most 20', code: 'maximum' },
    ]);
  });

  it('gives the same issues as the validate stage for a tool described by JSON Schema', () => {
    const value = { expression: '', items: [{ k: 1 }], v: 'x' };
    const server = validateInput('calc', jsonSchemaInput(schema as Record<string, unknown>), value);
    expect(server.ok).toBe(false);
    if (!server.ok) expect(validateAgainstSchema(schema, value, 'calc')).toEqual(server.error.details?.issues);
  });

  it('checks formats, and gives no hints for a schema Ajv cannot read (the server judges)', () => {
    const dated: JsonSchema = { type: 'object', properties: { since: { type: 'string', format: 'date' } } };
    expect(validateAgainstSchema(dated, { since: 'yesterday' })).toEqual([
      { path: 'since', message: 'Must match format "date"', code: 'format' },
    ]);
    expect(validateAgainstSchema({ type: 'strin' }, 5)).toEqual([]);
  });
});

describe('propertyNames', () => {
  const headers: JsonSchema = {
    type: 'object',
    properties: {
      headers: {
        type: 'object',
        propertyNames: { type: 'string', minLength: 1, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" },
        additionalProperties: { type: 'string' },
      },
    },
  };

  it('refuses an empty header name and one that breaks the pattern, at the key path', () => {
    const issues = validateAgainstSchema(headers, { headers: { '': 'a', 'bad name': 'b', 'x-ok': 'c' } });
    expect(issues).toEqual([
      { path: 'headers.', message: 'A name cannot be empty', code: 'invalid_key' },
      {
        path: 'headers.bad name',
        message: expect.stringMatching(/^"bad name" is not a valid name: must match pattern/),
        code: 'invalid_key',
      },
    ]);
    expect(validateAgainstSchema(headers, { headers: { 'content-type': 'text/plain' } })).toEqual([]);
  });

  it('checks the schema derived from http_request', async () => {
    const { createHttpRequestTool } = await import('../tools/http-request');
    const { inputJsonSchema } = await import('../executor/json-schema');
    const schema = inputJsonSchema(createHttpRequestTool()) as JsonSchema;
    const issues = validateAgainstSchema(schema, { url: 'http://localhost/', headers: { '': 'x' } });
    expect(issues).toEqual([{ path: 'headers.', message: 'A name cannot be empty', code: 'invalid_key' }]);
    expect(validateAgainstSchema(schema, { url: 'http://localhost/', extra: 1 }, 'http_request')).toEqual([
      {
        path: 'extra',
        message: 'Unknown field "extra"; http_request takes: url, method, headers, body',
        code: 'unrecognized_keys',
      },
    ]);
  });
});
