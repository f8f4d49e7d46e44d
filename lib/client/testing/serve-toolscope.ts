import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createAgentHandler, type RequestListener } from '../../agent-path/agent-handler';
import { createAgentServer } from '../../agent-path/create-agent-server';
import { loadConfig } from '../../config';
import { createToolscope, type Toolscope } from '../../server/create-toolscope';

const root = path.resolve(__dirname, '../../..');

export interface ServedToolscope {
  ts: Toolscope;
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  dir: string;
  server: http.Server;
  /** Stops the server and the Toolscope, removes the data folder. */
  close(): Promise<void>;
  /** Cuts the connections of the open event streams (a proxy or network dropping them); other connections stay. */
  dropEventStreams(): void;
  /** Stops as a shutdown does and starts again on the same folder and port; `ts` and `server` are the new ones. */
  restart(): Promise<void>;
}

interface FileRoute {
  segments: (string | { param: string })[];
  file: string;
}

/** The route files under `app/api`, as Next's file-system router sees them (`[id]` is a parameter). */
function fileRoutes(): FileRoute[] {
  const routes: FileRoute[] = [];
  const walk = (dir: string, segments: FileRoute['segments']) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        const param = /^\[(\w+)\]$/.exec(entry.name)?.[1];
        walk(path.join(dir, entry.name), [...segments, param ? { param } : entry.name]);
      } else if (entry.name === 'route.ts') routes.push({ segments, file: path.join(dir, entry.name) });
    }
  };
  walk(path.join(root, 'app/api'), ['api']);
  // Static segments before parameters, as Next matches them.
  return routes.sort((a, b) => staticWeight(b) - staticWeight(a));
}

const staticWeight = (route: FileRoute) =>
  route.segments.reduce<number>((sum, s, i) => sum + (typeof s === 'string' ? 2 ** (16 - i) : 0), 0);

function matchRoute(routes: FileRoute[], pathname: string) {
  const parts = pathname.split('/').slice(1).map(decodeURIComponent);
  for (const route of routes) {
    if (route.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const fits = route.segments.every((segment, i) => {
      if (typeof segment === 'string') return segment === parts[i];
      params[segment.param] = parts[i] as string;
      return true;
    });
    if (fits) return { file: route.file, params };
  }
  return null;
}

type RouteModule = Record<string, (request: Request, context: { params: Promise<object> }) => Promise<Response>>;

/**
 * What `next` does for `/api/` in the built server, in-process: the request as a web `Request` to
 * the route file's exported method, its `Response` written back. The route files read the
 * Toolscope from `getToolscope()`, which is this test's.
 */
function routeFiles(): RequestListener {
  const routes = fileRoutes();
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const match = matchRoute(routes, url.pathname);
    const method = req.method ?? 'GET';
    const handler = match ? ((await import(match.file)) as RouteModule)[method] : undefined;
    if (!match || !handler) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not an API route of this test server');
      return;
    }
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(key, value);
    }
    const hasBody = method !== 'GET' && method !== 'HEAD';
    const request = new Request(url, {
      method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
      signal: abort.signal,
      // @ts-expect-error: Node's fetch needs this for a streamed request body
      duplex: hasBody ? 'half' : undefined,
    });
    const response = await handler(request, { params: Promise.resolve(match.params) });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
    res.end();
  };
}

/**
 * A real Toolscope on a loopback port for client tests: the agent path (the guard, the lean
 * tool-calls and events routes) in front of the real route files of `app/api`, one SQLite file in
 * a fresh data folder. What the built server is, minus Next's pages. The test file must
 * `vi.mock('server-only', () => ({}))`: that marker package throws outside Next's server build.
 * @param config the toolscope.config.json to write, if any
 * @param env more environment (e.g. `TOOLSCOPE_TOKEN`)
 * @param options.heartbeatMs the event stream's heartbeat (default 5 s)
 */
export async function serveToolscope(
  config?: object,
  env: Record<string, string> = {},
  options: { heartbeatMs?: number } = {},
): Promise<ServedToolscope> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-client-'));
  if (config) fs.writeFileSync(path.join(dir, 'toolscope.config.json'), JSON.stringify(config));
  const streams = new Set<Socket>();
  const start = async (port: number) => {
    const ts = createToolscope(loadConfig({ ...env, TOOLSCOPE_DATA_DIR: dir }, dir));
    (globalThis as { __toolscope?: Toolscope }).__toolscope = ts;
    const server = createAgentServer(
      createAgentHandler({ ts, next: routeFiles(), heartbeatMs: options.heartbeatMs }),
      ts.config.limits,
    );
    server.on('request', (req: http.IncomingMessage) => {
      if (!req.url?.startsWith('/api/v1/events')) return;
      streams.add(req.socket);
      req.socket.once('close', () => streams.delete(req.socket));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return { ts, server };
  };
  const stop = async ({ ts, server }: { ts: Toolscope; server: http.Server }) => {
    ts.events.closeAll();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await ts.stop({ by: 'shutdown' });
    ts.close();
    delete (globalThis as { __toolscope?: Toolscope }).__toolscope;
  };
  const first = await start(0);
  const { port } = first.server.address() as AddressInfo;
  const served: ServedToolscope = {
    ...first,
    dir,
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      await stop(served);
      fs.rmSync(dir, { recursive: true, force: true });
    },
    dropEventStreams() {
      for (const socket of streams) socket.destroy();
    },
    async restart() {
      await stop(served);
      // Clients in this process see their pooled connections closed before the port answers again.
      await new Promise((resolve) => setTimeout(resolve, 50));
      Object.assign(served, await start(port));
    },
  };
  return served;
}
