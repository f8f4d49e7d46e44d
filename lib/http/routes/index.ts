import type { RouteSpec } from '../route';
import approvals from './approvals';
import audit from './audit';
import auth from './auth';
import events from './events';
import faults from './faults';
import health from './health';
import importRoutes from './import';
import keys from './keys';
import mcp from './mcp';
import mcpServers from './mcp-servers';
import policy from './policy';
import sessions from './sessions';
import toolCalls from './tool-calls';
import tools from './tools';
import traces from './traces';

/**
 * Every route Toolscope's HTTP layer serves, one file per resource: the app registers them, the
 * role-matrix tests walk them. Static segments before parameters (`/traces/export` before
 * `/traces/:id`) within each file.
 */
export const ROUTES: readonly RouteSpec[] = [
  ...toolCalls,
  ...events,
  ...traces,
  ...sessions,
  ...importRoutes,
  ...tools,
  ...policy,
  ...approvals,
  ...faults,
  ...mcpServers,
  ...keys,
  ...audit,
  ...mcp,
  ...auth,
  ...health,
];

/** A path of the API (`/api/…` and `/mcp`) with the methods its routes answer. */
export interface ApiPath {
  pattern: string;
  methods: readonly RouteSpec['method'][];
}

/** Every path of the API with its methods, from ROUTES: what the hardening tests walk. */
export const API_PATHS: readonly ApiPath[] = (() => {
  const paths = new Map<string, RouteSpec['method'][]>();
  for (const route of ROUTES) {
    if (!route.path.startsWith('/api/')) continue;
    paths.set(route.path, [...(paths.get(route.path) ?? []), route.method]);
  }
  return [...paths].map(([pattern, methods]) => ({ pattern, methods }));
})();
