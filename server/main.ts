/**
 * `npm start`'s server: Toolscope's one HTTP layer (`lib/http`, a Hono app) in front of Next.js,
 * in one process with one Toolscope. Every request passes the layer's chain (guard,
 * authentication, role check, body limit); the API and `/mcp` are answered there, pages and
 * server actions are handed on to Next's request handler. Bundled by scripts/build.mjs into
 * `.next/toolscope-server.mjs`.
 * 1. start Toolscope (config, database, migrations) and claim shutdown, with the HTTP server to close;
 * 2. prepare Next.js (its pages find the same Toolscope through `getToolscope`);
 * 3. listen.
 */
import next from 'next';
import { createHttpApp } from '../lib/http/app';
import { createHttpServer } from '../lib/http/node-server';
import { ownShutdown, startToolscope } from '../lib/server/boot';

async function main() {
  const ts = startToolscope();
  const { host, port } = ts.config;
  const nextApp = next({ dev: false, dir: process.cwd(), hostname: host, port });
  let nextHandler: ReturnType<typeof nextApp.getRequestHandler> | undefined;
  const app = createHttpApp(ts, { next: (req, res) => nextHandler!(req, res) });
  const server = createHttpServer(app, ts.config.limits);
  ownShutdown(ts, { server });
  await nextApp.prepare();
  nextHandler = nextApp.getRequestHandler();
  server.on('error', (error) => {
    console.error(`[toolscope] cannot listen on ${host}:${port}: ${error.message}`);
    process.exit(1);
  });
  server.listen(port, host, () => console.log(`[toolscope] ready on http://${host}:${port}`));
}

main().catch((error: unknown) => {
  console.error('[toolscope] failed to start:', error);
  process.exit(1);
});
