// A stdio MCP server whose tools are slow, huge or never answer, for
// lib/hardening/event-loop-tools.test.ts: `sleep` answers after `ms`, `huge` answers with `chars`
// characters of text (as an error result with `error: true`), `hang` never answers, `chatter`
// writes `lines` lines of `chars` characters to stderr as fast as the pipe takes them, then answers.
import { once } from 'node:events';
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
  {
    name: 'chatter',
    description: 'Writes lines lines of chars characters to stderr, then answers',
    inputSchema: object({ lines: { type: 'integer', minimum: 0 }, chars: { type: 'integer', minimum: 1 } }, ['lines']),
    annotations,
  },
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
    case 'chatter': {
      // At the pace the server reads them (the pipe is a socket, written asynchronously): the
      // answer goes out once the last line has left this process.
      const filler = 'x'.repeat(Math.max(0, (args.chars ?? 100) - 12));
      for (let line = 0; line < args.lines; line++) {
        if (!process.stderr.write(`${String(line).padStart(10, '0')}: ${filler}\n`))
          await once(process.stderr, 'drain');
      }
      await new Promise((resolve) => process.stderr.write('', resolve));
      return { content: [{ type: 'text', text: `wrote ${args.lines} lines to stderr` }] };
    }
    default:
      return { content: [{ type: 'text', text: `no tool ${request.params.name}` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
