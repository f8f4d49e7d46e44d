import { z } from 'zod';
import { isJsonSchemaInput } from './json-schema-input';
import type { CircuitBreakerPolicy, RetryPolicy, Tool, ToolDefinition } from './types';

export const DEFAULT_TIMEOUT_MS = 30_000;

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  factor: 2,
  jitter: 0.5,
};

export const DEFAULT_CIRCUIT_BREAKER: CircuitBreakerPolicy = { failureThreshold: 5, cooldownMs: 30_000 };

/** A tool whose input schema is zod (Toolscope's own tools): its schema can be parsed directly. */
export type ZodTool<I = unknown, O = unknown> = Tool<I, O> & { inputSchema: z.ZodType<I> };

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Declares a tool: schema, side effect, limits and `execute` in one object; fills in defaults.
 * Object input schemas become strict (unknown fields are refused, and the JSON Schema says
 * `additionalProperties: false`) unless the tool says `unknownArguments: 'ignore'`.
 * @example
 * export const echo = defineTool({
 *   name: 'echo', description: 'Echo the text back', sideEffect: 'none',
 *   inputSchema: z.object({ text: z.string() }),
 *   execute: ({ text }) => ({ text }),
 * });
 */
export function defineTool<I, O>(definition: ToolDefinition<I, O> & { inputSchema: z.ZodType<I> }): ZodTool<I, O>;
export function defineTool<I, O>(definition: ToolDefinition<I, O>): Tool<I, O>;
export function defineTool<I, O>(definition: ToolDefinition<I, O>): Tool<I, O> {
  if (!TOOL_NAME.test(definition.name)) {
    throw new Error(`Tool name "${definition.name}" must be 1-64 letters, digits, "_" or "-"`);
  }
  const retry = { ...DEFAULT_RETRY, ...definition.retry };
  if (!Number.isInteger(retry.maxAttempts) || retry.maxAttempts < 1) {
    throw new Error(`Tool "${definition.name}": retry.maxAttempts must be an integer >= 1`);
  }
  if (retry.jitter < 0 || retry.jitter > 1) {
    throw new Error(`Tool "${definition.name}": retry.jitter must be between 0 and 1`);
  }
  const timeoutMs = definition.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new Error(`Tool "${definition.name}": timeoutMs must be positive`);
  const unknownArguments = definition.unknownArguments ?? 'reject';
  return {
    ...definition,
    // A JSON Schema says itself what it does with unknown fields (`additionalProperties`).
    inputSchema:
      unknownArguments === 'reject' && !isJsonSchemaInput(definition.inputSchema)
        ? (strictObjects(definition.inputSchema) as z.ZodType<I>)
        : definition.inputSchema,
    unknownArguments,
    timeoutMs,
    retry,
    circuitBreaker: definition.circuitBreaker ?? DEFAULT_CIRCUIT_BREAKER,
    sensitivePaths: definition.sensitivePaths ?? [],
    fallbacks: definition.fallbacks ?? [],
  };
}

/** Wrappers whose `innerType` is the schema that meets the value. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

/**
 * Makes every plain object in a schema strict, at any depth (inside optional, nullable, default,
 * arrays, unions, record values and the input side of pipes). A model learns from "unknown field"
 * what it would never learn from a field silently dropped. Objects that already say what to do
 * with unknown keys (`passthrough`, `catchall`), records, intersections and lazy schemas are left
 * as they are: strictness there would refuse keys the schema means to take.
 */
export function strictObjects(schema: z.ZodType): z.ZodType {
  // biome-ignore lint/suspicious/noExplicitAny: zod's definitions differ per schema type.
  const def = (schema as any)._zod.def as Record<string, any>;
  const rebuild = (changes: Record<string, unknown>) => withMeta(schema, schema.clone({ ...def, ...changes } as never));
  switch (def.type) {
    case 'object': {
      const shape: Record<string, z.ZodType> = {};
      let changed = def.catchall === undefined;
      for (const [key, child] of Object.entries(def.shape as Record<string, z.ZodType>)) {
        shape[key] = strictObjects(child);
        changed ||= shape[key] !== child;
      }
      if (!changed) return schema;
      return rebuild({ shape, catchall: def.catchall ?? z.never() });
    }
    case 'array': {
      const element = strictObjects(def.element);
      return element === def.element ? schema : rebuild({ element });
    }
    case 'record': {
      const valueType = strictObjects(def.valueType);
      return valueType === def.valueType ? schema : rebuild({ valueType });
    }
    case 'union': {
      const options = (def.options as z.ZodType[]).map(strictObjects);
      return options.every((option, i) => option === def.options[i]) ? schema : rebuild({ options });
    }
    case 'pipe': {
      const input = strictObjects(def.in);
      return input === def.in ? schema : rebuild({ in: input });
    }
    default: {
      if (!WRAPPERS.has(def.type)) return schema;
      const innerType = strictObjects(def.innerType);
      return innerType === def.innerType ? schema : rebuild({ innerType });
    }
  }
}

/** A clone loses the description and other metadata of the schema it came from: copy them. */
function withMeta(from: z.ZodType, to: z.ZodType): z.ZodType {
  const meta = z.globalRegistry.get(from);
  if (meta && !z.globalRegistry.has(to)) z.globalRegistry.add(to, meta);
  return to;
}
