import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config';
import { createToolscope, type Toolscope } from '../../server/create-toolscope';
import { createHttpApp, type HttpApp, type HttpAppOptions } from '../app';
import { createHttpServer } from '../node-server';

export interface ServedToolscope {
  ts: Toolscope;
  app: HttpApp;
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  dir: string;
  server: http.Server;
  /** Stops the server and the Toolscope, removes the data folder. */
  close(): Promise<void>;
  /** Cuts the connections of the open event streams (a proxy or network dropping them); other connections stay. */
  dropEventStreams(): void;
  /** Stops as a shutdown does and starts again on the same folder and port; `ts`, `app` and `server` are the new ones. */
  restart(): Promise<void>;
}

/**
 * A real Toolscope on a loopback port: the HTTP layer (`createHttpApp`) on Node's server as
 * `npm start` serves it, one SQLite file in a fresh data folder — the built server minus Next's
 * pages (a page path is the API's 404).
 * @param config the toolscope.config.json to write, if any
 * @param env more environment (e.g. `TOOLSCOPE_TOKEN`)
 * @param options the app's options (heartbeat, MCP endpoint made by `mcp(ts)`)
 */
export async function serveToolscope(
  config?: object,
  env: Record<string, string> = {},
  options: Omit<HttpAppOptions, 'mcp' | 'next'> & { mcp?: (ts: Toolscope) => HttpAppOptions['mcp'] } = {},
): Promise<ServedToolscope> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-http-'));
  if (config) fs.writeFileSync(path.join(dir, 'toolscope.config.json'), JSON.stringify(config));
  const streams = new Set<Socket>();
  const start = async (port: number) => {
    const ts = createToolscope(loadConfig({ ...env, TOOLSCOPE_DATA_DIR: dir }, dir));
    const app = createHttpApp(ts, { heartbeatMs: options.heartbeatMs, mcp: options.mcp?.(ts) });
    const server = createHttpServer(app, ts.config.limits);
    server.on('request', (req: http.IncomingMessage) => {
      if (!req.url?.startsWith('/api/v1/events')) return;
      streams.add(req.socket);
      req.socket.once('close', () => streams.delete(req.socket));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return { ts, app, server };
  };
  const stop = async ({ ts, app, server }: { ts: Toolscope; app: HttpApp; server: http.Server }) => {
    ts.events.closeAll();
    await app.parts.mcp.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await ts.stop({ by: 'shutdown' });
    ts.close();
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
