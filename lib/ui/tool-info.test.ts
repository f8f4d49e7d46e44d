import { describe, expect, it } from 'vitest';
import { defineTool } from '../executor/define-tool';
import { inputJsonSchema } from '../executor/json-schema';
import { jsonSchemaInput } from '../executor/json-schema-input';
import { createCalculatorTool } from '../tools/calculator';
import { validateAgainstSchema } from './json-schema';
import { formSchemaOf } from './tool-info';

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
