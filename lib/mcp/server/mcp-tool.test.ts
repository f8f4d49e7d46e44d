import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../executor/define-tool';
import { jsonSchemaInput } from '../../executor/json-schema-input';
import type { ToolResult } from '../../executor/types';
import { toCallToolResult } from './call-tool-result';
import { mcpToolOf, titleOf } from './mcp-tool';

const upstream = (schema: Record<string, unknown>) =>
  defineTool({
    name: 'fs__read_text_file',
    description: 'Read a file',
    inputSchema: jsonSchemaInput(schema),
    sideEffect: 'read',
    execute: () => 'text',
  });

describe('tools as MCP lists them', () => {
  it('gives a JSON Schema tool its schema as it came, without $schema', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { path: { type: 'string', minLength: 1 } },
      required: ['path'],
    };
    expect(mcpToolOf(upstream(schema))).toEqual({
      name: 'fs__read_text_file',
      title: 'fs: Read text file',
      description: 'Read a file',
      inputSchema: { type: 'object', properties: { path: { type: 'string', minLength: 1 } }, required: ['path'] },
      annotations: { title: 'fs: Read text file', readOnlyHint: true, destructiveHint: false },
    });
  });

  it('says type object for a schema that leaves it out (MCP clients refuse the whole list otherwise)', () => {
    const anyOf = { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }] };
    expect(mcpToolOf(upstream(anyOf)).inputSchema).toEqual({ type: 'object', ...anyOf });
  });

  it('marks write and exec tools destructive, none and read ones read-only', () => {
    const tool = (sideEffect: 'none' | 'read' | 'write' | 'exec') =>
      mcpToolOf(defineTool({ name: 'x', description: 'x', inputSchema: z.object({}), sideEffect, execute: () => null }))
        .annotations;
    expect(tool('none')).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tool('read')).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tool('write')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tool('exec')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('titles from names', () => {
    expect(titleOf('read_file')).toBe('Read file');
    expect(titleOf('calculator')).toBe('Calculator');
    expect(titleOf('everything__get-sum')).toBe('everything: Get sum');
  });
});

describe('results as MCP answers them', () => {
  const base: ToolResult = {
    toolCallId: 'c',
    traceId: 't1',
    tool: 'x',
    status: 'succeeded',
    success: true,
    latencyMs: 1,
    metadata: {
      traceId: 't1',
      attempts: 1,
      stderr: null,
      exitCode: null,
      truncated: false,
      parseFailed: false,
      fellBackTo: null,
      faulted: false,
    },
  };

  it('structuredContent only for a JSON object; text always', () => {
    expect(toCallToolResult({ ...base, output: { a: 1 } })).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
      _meta: { 'toolscope/trace_id': 't1' },
    });
    expect(toCallToolResult({ ...base, output: [1, 2] }).structuredContent).toBeUndefined();
    expect(toCallToolResult({ ...base, output: 'plain' }).content).toEqual([{ type: 'text', text: 'plain' }]);
    expect(toCallToolResult({ ...base, output: null }).content).toEqual([{ type: 'text', text: 'null' }]);
  });

  it('a failure is isError with the message the model gets', () => {
    const failed = toCallToolResult({
      ...base,
      status: 'failed',
      success: false,
      error: { code: 'TIMEOUT', message: 'Took too long.', retryable: true, kind: 'timeout', hint: 'Try later.' },
    });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toBeUndefined();
    expect(failed.content).toEqual([
      { type: 'text', text: 'Error TIMEOUT: Took too long.\nRetrying this call may succeed.\nWhat to do: Try later.' },
    ]);
  });
});
