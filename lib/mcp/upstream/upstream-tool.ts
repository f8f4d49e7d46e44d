import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolSettings } from '../../config';
import { defineTool } from '../../executor/define-tool';
import { jsonSchemaInput } from '../../executor/json-schema-input';
import type { AnyTool, SideEffect, ToolAvailability, ToolContext } from '../../executor/types';
import { upstreamPathSubject } from './path-subject';

/** What an upstream tool needs of its server. */
export interface UpstreamToolHost {
  name: string;
  timeoutMs: number;
  retries: number;
  tools: Record<string, McpToolSettings>;
  availability(): ToolAvailability;
  call(tool: string, input: unknown, ctx: ToolContext): Promise<unknown>;
}

const NAME_MAX = 64;

/** `<server>__<tool>`, with characters a tool name may not hold replaced by `_`; null when too long. */
export function upstreamToolName(server: string, tool: string): string | null {
  const name = `${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  return name.length <= NAME_MAX ? name : null;
}

/** Whether `name` is one of `server`'s tools. */
export function ownedBy(server: string): (name: string) => boolean {
  const prefix = `${server}__`;
  return (name) => name.startsWith(prefix);
}

/**
 * The side effect of an MCP tool: the config's when it says, else from the annotations
 * (`readOnlyHint` → read, `destructiveHint` → write) and write when they say nothing, as the
 * MCP spec tells clients to assume.
 */
export function sideEffectOfMcpTool(tool: McpTool, settings: McpToolSettings | undefined): SideEffect {
  if (settings?.sideEffect) return settings.sideEffect;
  if (tool.annotations?.readOnlyHint === true) return 'read';
  return 'write';
}

/**
 * An MCP server's tool as a Toolscope tool: `<server>__<tool>`, its JSON Schema as is, the
 * server's timeout, retries only when idempotent (`idempotentHint` or the config), the shared
 * path subject for permission rules, and unavailable while the server is down.
 * Throws when the tool cannot be one (a schema Ajv cannot read, a name too long, a tool that runs
 * only as an MCP task): the server's list skips it, saying why in the server's `error`.
 */
export function createUpstreamTool(host: UpstreamToolHost, tool: McpTool): AnyTool {
  const name = upstreamToolName(host.name, tool.name);
  if (!name) throw new Error(`the name "${host.name}__${tool.name}" is longer than ${NAME_MAX} characters`);
  // Such a tool only runs as an MCP task (tasks/*), which a plain tools/call cannot start.
  if (tool.execution?.taskSupport === 'required')
    throw new Error('it runs only as an MCP task, which Toolscope does not call');
  const settings = host.tools[tool.name];
  const idempotent = settings?.idempotent ?? tool.annotations?.idempotentHint === true;
  const original = tool.name;
  return defineTool({
    name,
    description:
      tool.description ?? tool.title ?? tool.annotations?.title ?? `${original} of the MCP server ${host.name}`,
    inputSchema: jsonSchemaInput(tool.inputSchema as Record<string, unknown>),
    sideEffect: sideEffectOfMcpTool(tool, settings),
    timeoutMs: host.timeoutMs,
    retry: { maxAttempts: idempotent ? host.retries : 1 },
    permissionSubject: upstreamPathSubject,
    availability: () => host.availability(),
    execute: (input, ctx) => host.call(original, input, ctx),
  });
}
