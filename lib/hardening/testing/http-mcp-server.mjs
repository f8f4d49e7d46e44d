// A Streamable HTTP MCP server whose answers are huge or never end, for
// lib/hardening/error-bounds.test.ts and lib/mcp/upstream/bounded-fetch.test.ts. Plain node:http,
// no SDK: it must answer in ways no well-behaved server would. Prints `listening <port>` once up.
// Tools (each answered as JSON, or as an SSE stream with `sse: true`):
// - `echo` answers `text` (its schema takes `text`, integer `tags` and nothing else);
// - `huge_error` answers an error result of `chars` characters of text, with `blocks` image
//   blocks besides when given;
// - `rpc_error` answers a JSON-RPC error whose message has `chars` characters;
// - `endless` answers a result whose text never ends (until the client hangs up);
// - `written` answers how many bytes the last `endless` answer wrote before the client hung up.
import http from 'node:http';
import { variedText as text } from './varied-text.mjs';

const object = (properties = {}) => ({ type: 'object', properties });
// Read-only (they run without approval), not idempotent (one attempt, no retries to wait for).
const annotations = { readOnlyHint: true, idempotentHint: false };
const TOOLS = [
  {
    name: 'echo',
    inputSchema: {
      ...object({
        text: { type: 'string' },
        tags: { type: 'array', items: { type: 'integer' } },
        sse: { type: 'boolean' },
      }),
      additionalProperties: false,
    },
    annotations,
  },
  {
    name: 'huge_error',
    inputSchema: object({ chars: { type: 'integer' }, blocks: { type: 'integer' }, sse: { type: 'boolean' } }),
    annotations,
  },
  { name: 'rpc_error', inputSchema: object({ chars: { type: 'integer' }, sse: { type: 'boolean' } }), annotations },
  { name: 'endless', inputSchema: object({ sse: { type: 'boolean' } }), annotations },
  { name: 'written', inputSchema: object(), annotations },
];

/** Bytes the last endless answer wrote, and whether the client hung up on it. */
let endless = { bytes: 0, closed: false };

function answer(res, message, sse) {
  const body = JSON.stringify(message);
  if (sse) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.end(`event: message\ndata: ${body}\n\n`);
  } else {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }
}

/** Writes `head`, then filler for ever, minding backpressure, until the client hangs up. */
function writeForever(res, head, sse) {
  res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
  endless = { bytes: 0, closed: false };
  const filler = Buffer.alloc(64 * 1024, 'a');
  res.on('close', () => {
    endless.closed = true;
  });
  const pump = () => {
    while (!res.destroyed) {
      endless.bytes += filler.length;
      if (!res.write(filler)) return void res.once('drain', pump);
    }
  };
  res.write(head);
  pump();
}

function call(res, id, name, args) {
  const sse = args.sse === true;
  const result = (value) => answer(res, { jsonrpc: '2.0', id, result: value }, sse);
  switch (name) {
    case 'echo':
      return result({ content: [{ type: 'text', text: args.text ?? '' }] });
    case 'huge_error': {
      const content = [{ type: 'text', text: text(args.chars ?? 0) }];
      for (let i = 0; i < (args.blocks ?? 0); i++) content.push({ type: 'image', mimeType: 'image/png', data: 'AAAA' });
      return result({ content, isError: true });
    }
    case 'rpc_error':
      return answer(res, { jsonrpc: '2.0', id, error: { code: -32602, message: text(args.chars ?? 0) } }, sse);
    case 'endless': {
      const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`;
      return writeForever(res, sse ? `event: message\ndata: ${head}` : head, sse);
    }
    case 'written':
      return result({ content: [{ type: 'text', text: JSON.stringify(endless) }] });
    default:
      return result({ content: [{ type: 'text', text: `no tool ${name}` }], isError: true });
  }
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    switch (message.method) {
      case 'initialize':
        return answer(res, {
          jsonrpc: '2.0',
          id: message.id,
          result: {
            protocolVersion: message.params.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'http-fixture', version: '1.0.0' },
          },
        });
      case 'tools/list':
        return answer(res, { jsonrpc: '2.0', id: message.id, result: { tools: TOOLS } });
      case 'tools/call':
        return call(res, message.id, message.params.name, message.params.arguments ?? {});
      case 'ping':
        return answer(res, { jsonrpc: '2.0', id: message.id, result: {} });
      default:
        return answer(res, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'no such method' } });
    }
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
