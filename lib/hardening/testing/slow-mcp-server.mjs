// A stdio MCP server whose tools are slow, huge or never answer, for
// lib/hardening/event-loop-tools.test.ts: `sleep` answers after `ms`, `huge` answers with `chars`
// characters of text (as an error result with `error: true`), `hang` never answers.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { variedText as text } from './varied-text.mjs';

const object = (properties = {}, required = []) => ({ type: 'object', properties, required });
// Read-only (they run without approval), not idempotent (one attempt, no retries to wait for).
const annotations = { readOnlyHint: true, idempotentHint: false };
const TOOLS = [
  {
    name: 'sleep',
    description: 'Answers after ms milliseconds',
    inputSchema: object({ ms: { type: 'integer', minimum: 0 } }, ['ms']),
    annotations,
  },
  {
    name: 'huge',
    description: 'Answers with chars characters of text; an error result with error: true',
    inputSchema: object({ chars: { type: 'integer', minimum: 0 }, error: { type: 'boolean' } }, ['chars']),
    annotations,
  },
  { name: 'hang', description: 'Never answers', inputSchema: object(), annotations },
];

const server = new Server({ name: 'slow-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case 'sleep':
      await new Promise((resolve) => setTimeout(resolve, args.ms));
      return { content: [{ type: 'text', text: `slept ${args.ms} ms` }] };
    case 'huge':
      return { content: [{ type: 'text', text: text(args.chars) }], isError: args.error === true };
    case 'hang':
      return new Promise(() => {});
    default:
      return { content: [{ type: 'text', text: `no tool ${request.params.name}` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
