// A stdio MCP server that echoes secrets back, for lib/hardening/secrets.test.ts: `echo` returns
// its arguments and logs them to stderr, `fail` returns them as an error result, `throw` answers
// with a JSON-RPC error quoting them, and `environment` returns the ECHO_API_KEY it was started
// with (the config's `env`) and whatever secret-looking variables it inherited.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

const open = { type: 'object', properties: {}, additionalProperties: true };
const TOOLS = ['echo', 'fail', 'throw', 'environment'].map((name) => ({
  name,
  description: `Echo fixture: ${name}`,
  inputSchema: open,
  annotations: { readOnlyHint: true },
}));

const server = new Server({ name: 'echo-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  const text = JSON.stringify(args);
  process.stderr.write(`echo-fixture: ${name} called with ${text}\n`);
  // Let the stderr line reach the client before the answer does (two pipes, no order between them).
  await new Promise((resolve) => setTimeout(resolve, 50));
  if (name === 'echo') return { content: [{ type: 'text', text: `echo: ${text}` }] };
  if (name === 'fail') return { content: [{ type: 'text', text: `failed with ${text}` }], isError: true };
  if (name === 'throw') throw new McpError(ErrorCode.InvalidParams, `cannot take ${text}`);
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => /KEY|TOKEN|SECRET/.test(key)));
  return { content: [{ type: 'text', text: `environment: ${JSON.stringify(env)} key=${process.env.ECHO_API_KEY}` }] };
});
await server.connect(new StdioServerTransport());
