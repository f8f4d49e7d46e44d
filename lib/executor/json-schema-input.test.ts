import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { defineTool } from './define-tool';
import { createExecutor } from './executor';
import { inputJsonSchema, toAnthropicTool, toOpenAITool } from './json-schema';
import { isJsonSchemaInput, jsonSchemaInput } from './json-schema-input';
import { createManualClock } from './manual-clock';
import { createRegistry } from './registry';
import { type FieldIssue, validateInput } from './validate-input';

/** A schema as an MCP server sends it (draft 2020-12, nested object, enum, array, a format). */
const searchSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, description: 'What to look for' },
    mode: { enum: ['fast', 'deep'] },
    limit: { type: 'integer', minimum: 1, maximum: 50 },
    filters: {
      type: 'object',
      properties: { since: { type: 'string', format: 'date' }, tags: { type: 'array', items: { type: 'string' } } },
      additionalProperties: false,
    },
  },
  required: ['query'],
  additionalProperties: false,
};

const search = defineTool<{ query: string }, { echoed: unknown }>({
  name: 'docs__search',
  description: 'Searches the docs',
  sideEffect: 'read',
  inputSchema: jsonSchemaInput(searchSchema),
  execute: (input) => ({ echoed: input }),
});

const issuesOf = (value: unknown): FieldIssue[] => {
  const checked = validateInput('docs__search', search.inputSchema, value);
  if (checked.ok) throw new Error('expected invalid arguments');
  return (checked.error.details as { issues: FieldIssue[] }).issues;
};

describe('tools described by JSON Schema', () => {
  it('run through the executor with their arguments untouched when valid', async () => {
    const executor = createExecutor({
      registry: createRegistry([search]),
      sink: createMemoryTraceStore(),
      clock: createManualClock(),
    });
    const args = { query: 'retry', mode: 'deep', filters: { since: '2026-11-30', tags: ['a'] } };
    const result = await executor.execute({ name: 'docs__search', arguments: JSON.stringify(args) });
    expect(result.status).toBe('succeeded');
    expect(result.output).toEqual({ echoed: args });
  });

  it('fail validation per field, with a path and a message a model can act on, like zod tools', async () => {
    expect(issuesOf({})).toEqual([{ path: 'query', message: 'Required field "query" is missing', code: 'required' }]);
    expect(issuesOf({ query: 'x', qurey: 'typo' })).toEqual([
      {
        path: 'qurey',
        message: 'Unknown field "qurey"; docs__search takes: query, mode, limit, filters',
        code: 'unrecognized_keys',
      },
    ]);
    expect(issuesOf({ query: 5 })).toEqual([
      { path: 'query', message: 'Expected string, received integer', code: 'invalid_type' },
    ]);
    expect(issuesOf({ query: 'x', mode: 'slow' })).toEqual([
      { path: 'mode', message: 'Expected one of: "fast", "deep"', code: 'invalid_value' },
    ]);
    expect(issuesOf({ query: 'x', limit: 0, filters: { since: 'yesterday', tags: ['a', 2] } })).toEqual([
      { path: 'limit', message: 'Must be at least 1', code: 'minimum' },
      { path: 'filters.since', message: 'Must match format "date"', code: 'format' },
      { path: 'filters.tags.1', message: 'Expected string, received integer', code: 'invalid_type' },
    ]);
    const executor = createExecutor({
      registry: createRegistry([search]),
      sink: createMemoryTraceStore(),
      clock: createManualClock(),
    });
    const result = await executor.execute({ name: 'docs__search', arguments: { query: '' } });
    expect(result.error).toMatchObject({ code: 'INVALID_ARGUMENTS', stage: 'validate' });
    expect(result.error?.message).toBe('Invalid arguments for docs__search: query: Must not be empty.');
  });

  it('name a bad object key at its own path, and say bounds in words', () => {
    const headers = jsonSchemaInput({
      type: 'object',
      properties: {
        headers: { type: 'object', propertyNames: { minLength: 1, pattern: '^[a-z-]+$' } },
        tags: { type: 'array', minItems: 2 },
        name: { type: 'string', maxLength: 3 },
      },
    });
    const checked = validateInput('t', headers, {
      headers: { '': 'a', 'bad name': 'b', ok: 'c' },
      tags: [1],
      name: 'long',
    });
    expect(checked.ok || checked.error.details).toEqual({
      issues: [
        { path: 'headers.', message: 'A name cannot be empty', code: 'invalid_key' },
        {
          path: 'headers.bad name',
          message: '"bad name" is not a valid name: must match pattern "^[a-z-]+$"',
          code: 'invalid_key',
        },
        { path: 'tags', message: 'Must have at least 2 items', code: 'minItems' },
        { path: 'name', message: 'Must have at most 3 characters', code: 'maxLength' },
      ],
    });
  });

  it('fold the branches of anyOf into one issue for the field', () => {
    const either = jsonSchemaInput({
      type: 'object',
      properties: { id: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
    });
    const checked = validateInput('t', either, { id: true });
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(checked.error.details).toEqual({
        issues: [{ path: 'id', message: 'Matches none of the allowed shapes', code: 'invalid_union' }],
      });
    }
    expect(validateInput('t', either, { id: 7 })).toEqual({ ok: true, value: { id: 7 } });
  });

  it('are given to models as the schema they came with, without $schema, in both formats', () => {
    const { $schema: _dropped, ...expected } = searchSchema;
    expect(inputJsonSchema(search)).toEqual(expected);
    expect(toOpenAITool(search).function.parameters).toEqual(expected);
    expect(toAnthropicTool(search).input_schema).toEqual(expected);
  });

  it('refuse a schema Ajv cannot compile where the tool is defined; take unknown keywords and draft-07', () => {
    expect(() => jsonSchemaInput({ type: 'object', properties: { a: { type: 'strin' } } })).toThrow(
      /^Invalid JSON Schema: /,
    );
    expect(() => jsonSchemaInput([] as unknown as Record<string, unknown>)).toThrow('A JSON Schema must be an object');
    const draft07 = jsonSchemaInput({
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'urn:example:x',
      type: 'object',
      'x-vendor': true,
      properties: { a: { type: 'number', exclusiveMinimum: 0 } },
    });
    // The same $id twice must not clash: each tool's schema is compiled on its own.
    jsonSchemaInput({ $id: 'urn:example:x', type: 'object' });
    expect(validateInput('t', draft07, { a: 1 }).ok).toBe(true);
    expect(validateInput('t', draft07, { a: 0 }).ok).toBe(false);
  });

  it('leave unknown fields to the schema (zod tools are strict by default)', () => {
    const open = defineTool({
      name: 'open',
      description: 'x',
      sideEffect: 'none',
      inputSchema: jsonSchemaInput({ type: 'object', properties: { a: { type: 'string' } } }),
      execute: () => null,
    });
    expect(isJsonSchemaInput(open.inputSchema)).toBe(true);
    expect(validateInput('open', open.inputSchema, { a: 'x', b: 1 }).ok).toBe(true);
    const strictZod = defineTool({
      name: 'closed',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({ a: z.string() }),
      execute: () => null,
    });
    expect(isJsonSchemaInput(strictZod.inputSchema)).toBe(false);
    expect(validateInput('closed', strictZod.inputSchema, { a: 'x', b: 1 }).ok).toBe(false);
  });

  it('check a JSON Schema output in the normalize stage', async () => {
    const lying = defineTool({
      name: 'lying',
      description: 'x',
      sideEffect: 'none',
      inputSchema: jsonSchemaInput({ type: 'object' }),
      outputSchema: jsonSchemaInput({ type: 'object', required: ['ok'] }),
      execute: () => ({ nope: true }),
    });
    const executor = createExecutor({
      registry: createRegistry([lying]),
      sink: createMemoryTraceStore(),
      clock: createManualClock(),
    });
    const result = await executor.execute({ name: 'lying', arguments: {} });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('INVALID_OUTPUT');
  });
});
