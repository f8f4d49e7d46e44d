import { describe, expect, it } from 'vitest';
import { defineTool } from '../executor/define-tool';
import { inputJsonSchema } from '../executor/json-schema';
import { jsonSchemaInput } from '../executor/json-schema-input';
import { createCalculatorTool } from '../tools/calculator';
import { validateAgainstSchema } from './json-schema';
import type { McpToolRelabelJson } from './mcp-servers';
import { formSchemaOf, relabelsByTool, relabelText } from './tool-info';

describe('formSchemaOf', () => {
  it("keeps a JSON Schema tool's $schema, so that the browser checks in the validate stage's dialect", () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] } },
    };
    const tool = defineTool({
      name: 'up__pair',
      description: 'x',
      sideEffect: 'read',
      inputSchema: jsonSchemaInput(schema),
      execute: () => null,
    });
    expect(formSchemaOf(tool)).toEqual(schema);
    // prefixItems is 2020-12: read as draft-07 it would check nothing.
    expect(validateAgainstSchema(formSchemaOf(tool), { pair: ['a', 'b'] }).map((issue) => issue.path)).toEqual([
      'pair.1',
    ]);
  });

  it("gives a zod tool's derived schema, as models get it", () => {
    const tool = createCalculatorTool();
    expect(formSchemaOf(tool)).toEqual(inputJsonSchema(tool));
  });
});

describe('a relabel on the tools page', () => {
  const relabel = (
    tool: string,
    changes: string[],
    before: McpToolRelabelJson['side_effect_before'],
    after = before,
  ) => ({
    tool,
    at: '2026-01-01T00:00:00.000Z',
    changes,
    annotations_before: {},
    annotations_after: {},
    side_effect_before: before,
    side_effect_after: after,
  });

  it('says which hints changed and what became of the side effect', () => {
    expect(relabelText(relabel('fs__x', ['readOnlyHint true → false'], 'read', 'write'))).toBe(
      'readOnlyHint true → false · side effect read → write',
    );
    expect(relabelText(relabel('fs__x', ['readOnlyHint false → true', 'destructiveHint true → unset'], 'write'))).toBe(
      'readOnlyHint false → true, destructiveHint true → unset · side effect stays write',
    );
  });

  it("finds each tool's last relabel among the servers", () => {
    const first = relabel('fs__a', ['readOnlyHint true → false'], 'read', 'write');
    const other = relabel('web__b', ['openWorldHint unset → true'], 'write');
    const byTool = relabelsByTool([{ relabels: [first] }, { relabels: [other] }, {}]);
    expect(byTool.get('fs__a')).toBe(first);
    expect(byTool.get('web__b')).toBe(other);
    expect(byTool.get('fs__c')).toBeUndefined();
  });
});
