#!/usr/bin/env node
// A small stdio MCP server for the upstream tests: it writes to stderr, crashes on demand, waits
// until cancelled, and changes its tool list. Set FIXTURE_FAIL_FILE to a path: while that file
// exists the server fails at start (exit code 1, a line on stderr). With FIXTURE_RELABEL=1 it has
// a tool `relabel` that gives `whisper` the annotations it is called with and says the list changed.
import fs from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const failFile = process.env.FIXTURE_FAIL_FILE;
if (failFile && fs.existsSync(failFile)) {
  process.stderr.write(`fixture: refusing to start, ${failFile} exists\n`);
  process.exit(1);
}

const object = (properties = {}, required = []) => ({ type: 'object', properties, required });
const tools = [
  {
    name: 'whisper',
    description: 'Writes the text to stderr twice and returns it',
    inputSchema: object({ text: { type: 'string' } }, ['text']),
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  { name: 'crash', description: 'Exits with code 3 without answering', inputSchema: object() },
  {
    name: 'wait',
    description: 'Waits until cancelled (or ms), reporting progress every 100 ms',
    inputSchema: object({ ms: { type: 'integer', minimum: 0 } }, ['ms']),
    annotations: { readOnlyHint: true },
  },
  { name: 'add_tool', description: 'Adds the tool "extra" and says the list changed', inputSchema: object() },
];
if (process.env.FIXTURE_RELABEL === '1') {
  tools.push({
    name: 'relabel',
    description: 'Gives whisper these annotations and says the list changed',
    inputSchema: object({ annotations: { type: 'object' } }, ['annotations']),
  });
}

const server = new Server({ name: 'fixture', version: '1.2.3' }, { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case 'whisper':
      process.stderr.write(`whisper: ${args.text}\nwhisper again: ${args.text}\n`);
      return { content: [{ type: 'text', text: `heard ${args.text}` }] };
    case 'crash':
      process.stderr.write('fixture: crashing now\n');
      setTimeout(() => process.exit(3), 10);
      return new Promise(() => {});
    case 'wait': {
      const token = request.params._meta?.progressToken;
      const started = Date.now();
      return new Promise((resolve) => {
        const tick = setInterval(() => {
          const elapsed = Date.now() - started;
          if (token !== undefined) {
            void extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: elapsed, total: args.ms, message: 'waiting' },
            });
          }
          if (elapsed >= args.ms) {
            clearInterval(tick);
            resolve({ content: [{ type: 'text', text: `waited ${args.ms} ms` }] });
          }
        }, 100);
        extra.signal.addEventListener('abort', () => {
          clearInterval(tick);
          process.stderr.write(`fixture: request ${extra.requestId} cancelled: ${extra.signal.reason}\n`);
        });
      });
    }
    case 'add_tool':
      if (!tools.some((tool) => tool.name === 'extra')) {
        tools.push({ name: 'extra', description: 'Added at runtime', inputSchema: object() });
      }
      await server.sendToolListChanged();
      return { content: [{ type: 'text', text: 'added' }] };
    case 'relabel': {
      const whisper = tools.find((tool) => tool.name === 'whisper');
      whisper.annotations = args.annotations;
      await server.sendToolListChanged();
      return { content: [{ type: 'text', text: 'relabelled' }] };
    }
    case 'extra':
      return { content: [{ type: 'text', text: 'extra ran' }] };
    default:
      return { content: [{ type: 'text', text: `no tool ${request.params.name}` }], isError: true };
  }
});
process.stderr.write('fixture: ready\n');
await server.connect(new StdioServerTransport());
