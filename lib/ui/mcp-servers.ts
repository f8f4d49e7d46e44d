import type { SideEffect } from '../executor/types';
import { fetchOrUnreachable } from './unreachable';

/** Where an upstream MCP server's connection stands (`GET /api/v1/mcp/servers`). */
export type McpServerState = 'connecting' | 'connected' | 'failed' | 'disconnected' | 'closed';

/** One upstream MCP server as `GET /api/v1/mcp/servers` lists it. */
export interface McpServerJson {
  name: string;
  transport: 'stdio' | 'http';
  state: McpServerState;
  /** The MCP protocol version agreed at the handshake; null before the first one. */
  protocol_version: string | null;
  server_info: { name: string; version: string } | null;
  /** Its tools' registered names (`server__tool`). */
  tools: string[];
  error: string | null;
  /** A stdio server's last stderr lines (up to 50), kept across crashes. */
  stderr_tail: string[];
  connected_at: string | null;
  next_retry_at: string | null;
  /** The last relabel of each tool whose annotations the server changed since Toolscope started. */
  relabels: McpToolRelabelJson[];
}

/** A tool an upstream server relabelled after it first listed it: the hints and side effects before and after. */
export interface McpToolRelabelJson {
  /** The registered name, `server__tool`. */
  tool: string;
  at: string;
  /** One line a hint that changed: `readOnlyHint true → false`. */
  changes: string[];
  annotations_before: Record<string, boolean>;
  annotations_after: Record<string, boolean>;
  side_effect_before: SideEffect;
  side_effect_after: SideEffect;
}

/** The TanStack Query keys of the tools page: the servers and the catalog of registered tools. */
export const MCP_SERVERS_KEY = ['mcp-servers'] as const;
export const TOOLS_CATALOG_KEY = ['tools-catalog'] as const;

/** Whether the server cannot serve its tools now: they are shown, marked unavailable. */
export function isDown(state: McpServerState): boolean {
  return state !== 'connected';
}

/** The MCP server a registered name belongs to (`fs__read_file` → `fs`), among `servers`; null for others. */
export function serverOfTool(name: string, servers: ReadonlySet<string>): string | null {
  const at = name.indexOf('__');
  if (at <= 0) return null;
  const server = name.slice(0, at);
  return servers.has(server) ? server : null;
}

/**
 * Tools grouped for the catalog: those of no MCP server first, then each server's, in the
 * servers' order; a server with no tool (yet) gets an empty group, so that its place shows.
 */
export function groupByServer<T extends { name: string }>(
  tools: readonly T[],
  servers: readonly string[],
): { server: string | null; tools: T[] }[] {
  const known = new Set(servers);
  const groups = new Map<string | null, T[]>([[null, []], ...servers.map((name): [string, T[]] => [name, []])]);
  for (const tool of tools) groups.get(serverOfTool(tool.name, known))?.push(tool);
  return [...groups].map(([server, members]) => ({ server, tools: members }));
}

/** An answer of the API that is not 2xx, as a sentence: its `error.message`, else the status. */
async function failure(response: Response, what: string): Promise<Error> {
  const body = (await response.json().catch(() => null)) as { error?: { message?: unknown } } | null;
  const message = typeof body?.error?.message === 'string' ? body.error.message : `HTTP ${response.status}`;
  return new Error(`${what}: ${message}`);
}

/** `GET /api/v1/mcp/servers`. */
export async function fetchMcpServers(): Promise<McpServerJson[]> {
  const response = await fetch('/api/v1/mcp/servers', { cache: 'no-store' });
  if (!response.ok) throw await failure(response, 'Could not list the MCP servers');
  return ((await response.json()) as { servers: McpServerJson[] }).servers;
}

/** `POST /api/v1/mcp/servers/:name/reconnect`: the server's entry once the attempt has started. */
export async function reconnectMcpServer(name: string): Promise<McpServerJson> {
  const response = await fetchOrUnreachable(`/api/v1/mcp/servers/${encodeURIComponent(name)}/reconnect`, {
    method: 'POST',
  });
  if (!response.ok) throw await failure(response, `Could not reconnect ${name}`);
  return (await response.json()) as McpServerJson;
}
