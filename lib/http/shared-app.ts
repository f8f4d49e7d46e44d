import 'server-only';
import { getToolscope } from '../server/toolscope';
import { createHttpApp, type HttpApp } from './app';

const globalForApp = globalThis as unknown as { __toolscopeHttpApp?: HttpApp };

/**
 * The HTTP layer's app of this process's Toolscope, for Next's catch-all route under `npm run dev`
 * (`npm start` mounts its own in `server/main.ts`). Kept on globalThis, as the Toolscope is, so
 * that dev-mode reloads share it (and its MCP sessions).
 */
export function getHttpApp(): HttpApp {
  globalForApp.__toolscopeHttpApp ??= createHttpApp(getToolscope());
  return globalForApp.__toolscopeHttpApp;
}
