import { z } from 'zod';
import type { AnyTool } from './types';

/** The JSON Schema of a tool's input, derived from its zod schema: the one source of truth. */
export function inputJsonSchema(tool: AnyTool): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' });
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
