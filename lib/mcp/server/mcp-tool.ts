import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { inputJsonSchema } from '../../executor/json-schema';
import type { AnyTool } from '../../executor/types';

// A tool object never changes once registered (a changed tool is a new object): one schema each.
const described = new WeakMap<AnyTool, McpTool>();

/**
 * A registered tool as MCP's `tools/list` gives it: its input's JSON Schema as models get it
 * (`inputJsonSchema`), and annotations from its declared side effect — `readOnlyHint` for
 * `none`/`read`, `destructiveHint` for `write`/`exec` (the worst the tool can do, so an
 * `http_request` that may POST is destructive) — with a title made from its name.
 * @example mcpToolOf(readFile) // { name: 'read_file', annotations: { title: 'Read file', readOnlyHint: true, … }, … }
 */
export function mcpToolOf(tool: AnyTool): McpTool {
  let mcp = described.get(tool);
  if (mcp) return mcp;
  const readOnly = tool.sideEffect === 'none' || tool.sideEffect === 'read';
  const title = titleOf(tool.name);
  mcp = {
    name: tool.name,
    title,
    description: tool.description,
    inputSchema: objectSchema(inputJsonSchema(tool)),
    annotations: { title, readOnlyHint: readOnly, destructiveHint: !readOnly },
  };
  described.set(tool, mcp);
  return mcp;
}

/**
 * MCP requires an input schema of `type: "object"` (clients refuse a whole tool list otherwise);
 * a tool's arguments are always an object here, so a schema that leaves the type out (a bare
 * `anyOf` of objects, `{}`) says so.
 */
function objectSchema(schema: Record<string, unknown>): McpTool['inputSchema'] {
  if (schema.type === 'object') return schema as McpTool['inputSchema'];
  const { type: _type, ...rest } = schema;
  return { type: 'object', ...rest };
}

/** `read_file` → `Read file`; an upstream server's `fs__read_text_file` → `fs: Read text file`. */
export function titleOf(name: string): string {
  const split = name.indexOf('__');
  const server = split > 0 ? `${name.slice(0, split)}: ` : '';
  const words = (split > 0 ? name.slice(split + 2) : name).replace(/[_-]+/g, ' ').trim();
  return server + (words.charAt(0).toUpperCase() + words.slice(1) || name);
}
