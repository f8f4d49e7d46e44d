import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import packageJson from '../../../package.json';
import type { Clock } from '../../executor/clock';
import type { Executor } from '../../executor/executor';
import type { CallPrincipal } from '../../executor/types';
import { callTool } from './call-tool';
import { mcpToolOf } from './mcp-tool';

const INSTRUCTIONS =
  'Toolscope runs these tools through its pipeline and records every call: arguments, attempts, output and errors. ' +
  'Calls with side effects may wait for a person to approve them; a denied or failed call comes back as an error result ' +
  'whose text says what happened and whether retrying can help.';

export interface SessionServerOptions {
  executor: Pick<Executor, 'execute' | 'inFlight' | 'registry'>;
  /** Who opened the session: its calls are theirs, and it lists only the tools they may call. */
  principal: CallPrincipal | null;
  mayCall?: (principalId: string, tool: string) => boolean;
  /** Whether the session was ended: its calls' cancellations are then the session's, not the client's. */
  ended(): boolean;
  keepAliveMs: number;
  clock?: Clock;
}

/**
 * The MCP server of one session (the SDK's `Server` serves one transport): tools only.
 * `tools/list` reads the registry live, every registered tool (built-in and upstream) as
 * `mcpToolOf` describes it; `tools/call` runs `callTool`. Tool list changes are announced with
 * `notifications/tools/list_changed`, coalesced by the SDK when several come in one tick.
 */
export function createSessionServer(options: SessionServerOptions): Server {
  const server = new Server(
    { name: 'toolscope', title: 'Toolscope', version: packageJson.version },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: INSTRUCTIONS,
      debouncedNotificationMethods: ['notifications/tools/list_changed'],
    },
  );
  const { executor, principal, mayCall } = options;
  const visible = (name: string) => !principal || !mayCall || mayCall(principal.id, name);
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: executor.registry
      .list()
      .filter((tool) => visible(tool.name))
      .map(mcpToolOf),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callTool(
      {
        executor,
        principal,
        sessionId: extra.sessionId,
        client: () => server.getClientVersion(),
        ended: options.ended,
        keepAliveMs: options.keepAliveMs,
        clock: options.clock,
      },
      request.params,
      extra,
    ),
  );
  return server;
}
