/**
 * `npm start`'s server: the agent path in front of Next.js, in one process with one Toolscope.
 * Agent-facing routes are served by `lib/agent-path` straight from Node's request (Next's request
 * path costs tens of milliseconds a call: see the README); pages, server actions and the rest of
 * the API go to Next's request handler. Bundled by scripts/build.mjs into `.next/toolscope-server.mjs`.
 * 1. start Toolscope (config, database, migrations) and claim shutdown, with the HTTP server to close;
 * 2. prepare Next.js (its route handlers find the same Toolscope through `getToolscope`);
 * 3. listen.
 */
import next from 'next';
import { createAgentHandler } from '../lib/agent-path/agent-handler';
import { createAgentServer } from '../lib/agent-path/create-agent-server';
import { ownShutdown, startToolscope } from '../lib/server/boot';

async function main() {
  const ts = startToolscope();
  const { host, port } = ts.config;
  const app = next({ dev: false, dir: process.cwd(), hostname: host, port });
  let nextHandler: ReturnType<typeof app.getRequestHandler> | undefined;
  const server = createAgentServer(
    createAgentHandler({ ts, next: (req, res) => nextHandler!(req, res) }),
    ts.config.limits,
  );
  ownShutdown(ts, { server });
  await app.prepare();
  nextHandler = app.getRequestHandler();
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
