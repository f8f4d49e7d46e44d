/**
 * Every feature since the agent path, turned on for the bench's app, as a busy user would have
 * them: an upstream MCP server (the reference `server-everything`, over stdio), OpenTelemetry
 * export to a local OTLP receiver (this process; it counts what it gets), a fault rule (on another
 * tool, so the calculator calls are matched against it and pass), approvals (`write`/`exec` ask,
 * the default) and a session id on every call.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface OtlpReceiver {
  endpoint: string;
  /** Export requests and bytes received so far. */
  received(): { requests: number; bytes: number };
  close(): Promise<void>;
}

/** A local OTLP/HTTP receiver: answers every export 200 and counts it. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  let requests = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on('end', () => {
      requests++;
      // An empty ExportTraceServiceResponse, in the encoding of the request.
      const protobuf = req.headers['content-type'] === 'application/x-protobuf';
      res.writeHead(200, { 'content-type': protobuf ? 'application/x-protobuf' : 'application/json' });
      res.end(protobuf ? '' : '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    received: () => ({ requests, bytes }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The app's config with an upstream MCP server. */
export function featuresConfig(root: string) {
  return {
    mcp: {
      servers: {
        everything: {
          command: process.execPath,
          args: [path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
          trustAnnotations: true,
        },
      },
    },
  };
}

/** Creates the bench's fault rule (latency on http_request) through the API. */
export async function createFaultRule(origin: string): Promise<void> {
  const response = await fetch(`${origin}/api/v1/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ name: 'bench: slow http', tool: 'http_request', kind: 'latency', params: { ms: 50 } }),
  });
  if (response.status !== 201) throw new Error(`creating the fault rule: ${response.status} ${await response.text()}`);
}

/** Waits until the upstream MCP server is connected (its tools listed). */
export async function waitForMcp(origin: string, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const response = await fetch(`${origin}/api/v1/mcp/servers`);
    const body = (await response.json()) as { servers?: { name: string; state: string }[] };
    const server = body.servers?.find((s) => s.name === 'everything');
    last = JSON.stringify(server ?? body);
    if (server?.state === 'connected') return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the upstream MCP server did not connect: ${last}`);
}
