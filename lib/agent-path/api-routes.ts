/**
 * Every route under `/api/`, with its methods. The agent path answers the ones marked `lean`
 * itself and hands the rest to Next.js; for any other path under `/api/` it answers the JSON 404,
 * 405 (with `Allow`) or 400 (bad percent-encoding) itself, so that no `/api/` answer is Next's
 * HTML. `api-routes.test.ts` keeps this list equal to the route files in `app/api/`.
 */
export const API_ROUTES = [
  { pattern: '/api/v1/tool-calls', methods: ['POST'], lean: 'tool-calls' },
  { pattern: '/api/v1/events', methods: ['GET'], lean: 'events' },
  { pattern: '/api/v1/traces', methods: ['GET'] },
  { pattern: '/api/v1/traces/export', methods: ['GET'] },
  { pattern: '/api/v1/traces/:id', methods: ['GET', 'DELETE'] },
  { pattern: '/api/v1/traces/:id/cancel', methods: ['POST'] },
  { pattern: '/api/v1/traces/:id/export', methods: ['GET'] },
  { pattern: '/api/v1/traces/:id/replay', methods: ['POST'] },
  { pattern: '/api/v1/traces/:id/compare/:other', methods: ['GET'] },
  { pattern: '/api/v1/sessions', methods: ['GET'] },
  { pattern: '/api/v1/sessions/:id', methods: ['GET', 'DELETE'] },
  { pattern: '/api/v1/sessions/:id/replay', methods: ['POST'] },
  { pattern: '/api/v1/sessions/:id/export', methods: ['GET'] },
  { pattern: '/api/v1/sessions/:id/compare/:other', methods: ['GET'] },
  // An export file: larger than other bodies (IMPORT_MAX_BYTES, lib/api/export-import.ts).
  { pattern: '/api/v1/import', methods: ['POST'], maxBodyBytes: 32 * 1024 * 1024 },
  { pattern: '/api/v1/stats', methods: ['GET'] },
  { pattern: '/api/v1/tools', methods: ['GET'] },
  { pattern: '/api/v1/tools/:name/stats', methods: ['GET'] },
  { pattern: '/api/v1/policy', methods: ['GET', 'PUT'] },
  { pattern: '/api/v1/policy/preview', methods: ['POST'] },
  { pattern: '/api/v1/approvals', methods: ['GET'] },
  { pattern: '/api/v1/approvals/:traceId', methods: ['POST'] },
  { pattern: '/api/v1/faults', methods: ['GET', 'POST'] },
  { pattern: '/api/v1/faults/reset', methods: ['POST'] },
  { pattern: '/api/v1/faults/disable-all', methods: ['POST'] },
  { pattern: '/api/v1/faults/:id', methods: ['GET', 'PATCH', 'DELETE'] },
  { pattern: '/api/v1/mcp/servers', methods: ['GET'] },
  { pattern: '/api/v1/mcp/servers/:name/reconnect', methods: ['POST'] },
] as const satisfies readonly ApiRouteSpec[];

interface ApiRouteSpec {
  pattern: string;
  methods: readonly string[];
  /** Served by the agent path's own handler, not by Next.js. */
  lean?: string;
  /** The largest body the route reads, when more than `limits.maxBodyBytes`. */
  maxBodyBytes?: number;
}

export type ApiRoute = (typeof API_ROUTES)[number];
export type LeanRouteName = Extract<ApiRoute, { lean: string }>['lean'];

export type RouteMatch =
  | { kind: 'found'; route: ApiRoute; allow: string }
  | { kind: 'not-found' }
  | { kind: 'bad-encoding' };

interface CompiledRoute {
  route: ApiRoute;
  segments: (string | null)[];
  /** The `Allow` header: GET routes answer HEAD too (as Next's do), every route OPTIONS. */
  allow: string;
}

// Split once at load: matching a request is a walk over a few short arrays, no regular expression.
const COMPILED: CompiledRoute[] = API_ROUTES.map((route) => {
  const methods: string[] = [...route.methods];
  if (methods.includes('GET')) methods.push('HEAD');
  methods.push('OPTIONS');
  return {
    route,
    segments: route.pattern
      .split('/')
      .slice(1)
      .map((s) => (s.startsWith(':') ? null : s)),
    allow: methods.join(', '),
  };
});

/**
 * Finds the route of an `/api/` path (without its query). Static segments win over parameters
 * (`/traces/export` before `/traces/:id`) because the list holds them first. A trailing slash is
 * ignored (Next.js redirects it); a segment that is not valid percent-encoding is `bad-encoding`;
 * a dot segment (`.`, `..`, `%2e`…) or a backslash matches nothing (URL parsing would move it).
 */
export function matchApiRoute(pathname: string): RouteMatch {
  const raw = pathname.split('/').slice(1);
  if (raw.length > 1 && raw.at(-1) === '') raw.pop();
  const segments: string[] = [];
  for (const segment of raw) {
    let decoded = segment;
    if (segment.includes('%')) {
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        return { kind: 'bad-encoding' };
      }
    }
    // Dot segments and backslashes: URL parsing (Next's) would turn the path into another one.
    if (decoded === '.' || decoded === '..' || segment.includes('\\')) return { kind: 'not-found' };
    segments.push(decoded);
  }
  for (const compiled of COMPILED) {
    if (compiled.segments.length !== segments.length) continue;
    if (compiled.segments.every((s, i) => (s === null ? segments[i] !== '' : s === segments[i]))) {
      return { kind: 'found', route: compiled.route, allow: compiled.allow };
    }
  }
  return { kind: 'not-found' };
}

/** Whether `method` is one the route answers (HEAD for GET routes, OPTIONS everywhere). */
export function allowsMethod(match: { allow: string }, method: string): boolean {
  return match.allow.split(', ').includes(method);
}
