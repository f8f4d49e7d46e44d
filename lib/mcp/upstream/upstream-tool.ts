import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolSettings } from '../../config';
import { defineTool } from '../../executor/define-tool';
import { jsonSchemaInput } from '../../executor/json-schema-input';
import type { AnyTool, PermissionSubject, SideEffect, ToolAvailability, ToolContext } from '../../executor/types';

/** What an upstream tool needs of its server. */
export interface UpstreamToolHost {
  name: string;
  timeoutMs: number;
  retries: number;
  /** Whether the server's `readOnlyHint` may make a tool a read (the config's `trustAnnotations`). */
  trustAnnotations: boolean;
  tools: Record<string, McpToolSettings>;
  /** The permission subject of the tool registered as `name` (the same object for its placeholder). */
  pathSubject(name: string): PermissionSubject<unknown>;
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
 * The side effect of an MCP tool: the config's when it says; else write, as the MCP spec tells
 * clients to take annotations from a server they do not trust; with `trustAnnotations`,
 * `readOnlyHint: true` makes it a read (and anything else, `destructiveHint` or no hint, a write).
 */
export function sideEffectOfMcpTool(
  tool: McpTool,
  settings: McpToolSettings | undefined,
  trustAnnotations: boolean,
): SideEffect {
  if (settings?.sideEffect) return settings.sideEffect;
  if (trustAnnotations && tool.annotations?.readOnlyHint === true) return 'read';
  return 'write';
}

/** The annotations that label a tool's behaviour; a relabel is a change of any of them. */
export const LABEL_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
export type LabelHint = (typeof LABEL_HINTS)[number];
/** A tool's label: each hint it gives (true or false); a hint it does not give is absent. */
export type ToolLabel = Partial<Record<LabelHint, boolean>>;

/** The hints of a listed tool's annotations. */
export function labelOf(tool: McpTool): ToolLabel {
  const label: ToolLabel = {};
  for (const hint of LABEL_HINTS) {
    const value = tool.annotations?.[hint];
    if (typeof value === 'boolean') label[hint] = value;
  }
  return label;
}

/** What changed between two labels, one line a hint: `readOnlyHint true → false`, `destructiveHint unset → true`. */
export function labelChanges(before: ToolLabel, after: ToolLabel): string[] {
  const text = (value: boolean | undefined) => (value === undefined ? 'unset' : String(value));
  return LABEL_HINTS.filter((hint) => before[hint] !== after[hint]).map(
    (hint) => `${hint} ${text(before[hint])} → ${text(after[hint])}`,
  );
}

/**
 * An MCP server's tool as a Toolscope tool: `<server>__<tool>`, its JSON Schema as is, the
 * server's timeout, retries only when idempotent (`idempotentHint` or the config), `sideEffect`
 * (the one given, else `sideEffectOfMcpTool`'s), the server's path subject for permission rules,
 * and unavailable while the server is down.
 * Throws when the tool cannot be one (a schema Ajv cannot read, a name too long, a tool that runs
 * only as an MCP task): the server's list skips it, saying why in the server's `error`.
 */
export function createUpstreamTool(host: UpstreamToolHost, tool: McpTool, sideEffect?: SideEffect): AnyTool {
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
    sideEffect: sideEffect ?? sideEffectOfMcpTool(tool, settings, host.trustAnnotations),
    timeoutMs: host.timeoutMs,
    retry: { maxAttempts: idempotent ? host.retries : 1 },
    permissionSubject: host.pathSubject(name),
    availability: () => host.availability(),
    execute: (input, ctx) => host.call(original, input, ctx),
  });
}
