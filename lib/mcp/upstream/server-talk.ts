import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpTool, Progress } from '@modelcontextprotocol/sdk/types.js';
import type { StdioProcessTransport } from './stdio-transport';

/** How a stdio server ended, as a clause: `it exited with code 1`, `it was killed by SIGKILL`. */
export function exitClause(stdio: StdioProcessTransport): string {
  const exit = stdio.exit;
  if (!exit) return 'it closed its connection';
  if (exit.signal) return `it was killed by ${exit.signal}`;
  return `it exited with code ${exit.code}`;
}

/** A network error's innermost message (`fetch failed` says little; its cause says ECONNREFUSED). */
export function causeOf(error: unknown): string | null {
  let current = error as { cause?: unknown; message?: unknown } | undefined;
  let found: string | null = null;
  for (let depth = 0; current && depth < 4; depth++) {
    if (typeof current.message === 'string' && current.message) found = current.message;
    current = current.cause as typeof current;
  }
  return found;
}

/** `progress 3/10: message` (total and message when the server gives them), one line. */
export function progressLine(progress: Progress): string {
  const total = progress.total !== undefined ? `/${progress.total}` : '';
  const message = progress.message ? `: ${progress.message}` : '';
  return `progress ${progress.progress}${total}${message}\n`;
}

/** Every tool the server lists, page after page. */
export async function listAllTools(client: Client): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}
