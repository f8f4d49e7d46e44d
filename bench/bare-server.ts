/**
 * The ceiling: a bare `node:http` server (keep-alive) that answers a POST the way the app's agent
 * path must at least: read the body, JSON.parse it, answer a small JSON. Run as a child process;
 * it tells the parent its port over IPC and stops when the parent disconnects.
 */
import http from 'node:http';

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let calls = 0;
    try {
      const parsed = JSON.parse(Buffer.concat(chunks).toString()) as { tool_calls?: unknown[] };
      calls = parsed.tool_calls?.length ?? 0;
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"code":"BAD_JSON"}}');
      return;
    }
    const body = JSON.stringify({ ok: true, calls });
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ type: 'listening', port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('disconnect', () => process.exit(0));
