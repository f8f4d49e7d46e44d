import { describe, expect, it } from 'vitest';
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

describe('validateAgainstSchema', () => {
  it('accepts a valid value', () => {
    expect(validateAgainstSchema(schema, { expression: '1+1', items: [{ k: 'x' }], method: 'GET' })).toEqual([]);
  });
  it('reports issues with dotted paths', () => {
    const issues = validateAgainstSchema(schema, {
      expression: '',
      precision: 2.5,
      items: [{}],
      extra: 1,
      method: 'PUT',
    });
    expect(issues.map((i) => i.path).sort()).toEqual(['expression', 'extra', 'items.0.k', 'method', 'precision']);
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
        message: expect.stringMatching(/^"bad name" is not a valid name: must match/),
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
    expect(validateAgainstSchema(schema, { url: 'http://localhost/', extra: 1 })).toEqual([
      {
        path: 'extra',
        message: 'Unknown field "extra"; the fields are: url, method, headers, body',
        code: 'unrecognized_keys',
      },
    ]);
  });
});
