import type { Action } from '../access/roles';
import type { Toolscope } from '../server/create-toolscope';
import type { HttpContext } from './env';

export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a route takes its body: `json` must be sent as JSON (415 otherwise, 400 when empty unless
 * the handler allows it), `optional-json` may be empty but is JSON when sent, `form` is a form
 * post (the login page's, which must work without a script); without `body` nothing is read.
 */
export type BodyKind = 'json' | 'optional-json' | 'form';

/**
 * One route of the API: its method and path (Hono's syntax, `:id` a parameter), the action the
 * role check asks for (null: public, before login), how it reads its body, and its handler.
 * Every route is one entry of ROUTES (`routes/index.ts`): the app and the role tests read that list.
 */
export interface RouteSpec {
  method: RouteMethod;
  path: string;
  action: Action | null;
  body?: BodyKind;
  /** The largest body it reads, when less than `limits.maxBodyBytes` (which bounds every route but the import). */
  maxBodyBytes?: number;
  /** `maxBodyBytes` alone bounds the body, above `limits.maxBodyBytes`: an export file is larger than other bodies. */
  ownBodyLimit?: boolean;
  handle(c: HttpContext, ts: Toolscope): Response | Promise<Response>;
}

/** Declares routes with their types checked: `export default defineRoutes([{ method, path, action, handle }])`. */
export function defineRoutes(routes: RouteSpec[]): RouteSpec[] {
  return routes;
}
