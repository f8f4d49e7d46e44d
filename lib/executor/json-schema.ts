import { z } from 'zod';
import { isJsonSchemaInput } from './json-schema-input';
import type { AnyTool } from './types';
import type { ToolSchema } from './validate-input';

/**
 * The JSON Schema of a tool's input: derived from its zod schema (the one source of truth), or
 * the JSON Schema it came with; without `$schema`, which models' tool parameters do not take.
 */
export function inputJsonSchema(tool: AnyTool): Record<string, unknown> {
  const input: ToolSchema = tool.inputSchema;
  const { $schema: _ignored, ...schema } = isJsonSchemaInput(input)
    ? input.schema
    : z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' });
  return schema;
}

/** The definition as OpenAI's `tools` parameter takes it. */
export function toOpenAITool(tool: AnyTool) {
  return {
    type: 'function' as const,
    function: { name: tool.name, description: tool.description, parameters: inputJsonSchema(tool) },
  };
}

/** The definition as Anthropic's `tools` parameter takes it. */
export function toAnthropicTool(tool: AnyTool) {
  return { name: tool.name, description: tool.description, input_schema: inputJsonSchema(tool) };
}
