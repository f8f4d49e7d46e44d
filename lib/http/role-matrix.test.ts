import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, type Action, ROLES, type Role, reachOf } from '../access/roles';
import { loadConfig } from '../config';
import { createToolscope, type Toolscope } from '../server/create-toolscope';
import { createHttpApp, type HttpApp } from './app';
import { ROUTES } from './routes';
import { callApp } from './testing/call-app';

/**
 * The role matrix, generated from the two tables it checks against each other: every route of
 * ROUTES asked by a key of every role, through the whole chain of a real Toolscope. A role the
 * ACTIONS table lets do the route's action gets past the role check (whatever the handler then
 * says of the sample request); any other gets 403 FORBIDDEN naming the role and the action; no key
 * and a revoked key get 401 UNAUTHENTICATED.
 */
let dir: string;
let ts: Toolscope;
let app: HttpApp;
const tokens = {} as Record<Role, string>;
let revoked: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-roles-'));
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir));
  app = createHttpApp(ts, { heartbeatMs: 60_000 });
  for (const role of ROLES) tokens[role] = ts.access.keys.create({ name: `${role}-key`, role }).token;
  const gone = ts.access.keys.create({ name: 'gone', role: 'admin' });
  ts.access.keys.revoke(gone.key.id);
  revoked = gone.token;
});

afterAll(async () => {
  await app.parts.mcp.close();
  await ts.stop({ by: 'test' });
  ts.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The route's path with its parameters filled in by a sample id. */
const sample = (path: string) => path.replace(/:\w+/g, 'sample-id');

const guarded = ROUTES.filter((route): route is typeof route & { action: Action } => route.action !== null);

async function ask(route: (typeof guarded)[number], token?: string): Promise<Response> {
  const body = route.body === 'json' ? {} : undefined;
  const response = await callApp(app, route.method, sample(route.path), {
    token,
    body,
    headers: route.path === '/mcp' ? { accept: 'application/json, text/event-stream' } : {},
  });
  // Event streams stay open: read nothing more of them.
  if (response.headers.get('content-type')?.includes('event-stream')) await response.body?.cancel().catch(() => {});
  return response;
}

describe('the role matrix', () => {
  it('covers every route with an action of the table', () => {
    expect(guarded.length).toBeGreaterThan(30);
    for (const route of guarded) expect(Object.keys(ACTIONS)).toContain(route.action);
  });

  for (const route of guarded) {
    describe(`${route.method} ${route.path} (${route.action})`, () => {
      for (const role of ROLES) {
        const allowed = reachOf(role, route.action) !== null;
        it(`${role}: ${allowed ? 'passes the role check' : '403 FORBIDDEN'}`, async () => {
          const response = await ask(route, tokens[role]);
          if (allowed) {
            expect([401, 403], `${response.status}`).not.toContain(response.status);
          } else {
            expect(response.status).toBe(403);
            const { error } = (await response.json()) as { error: { code: string; message: string } };
            expect(error.code).toBe('FORBIDDEN');
            expect(error.message).toContain(role);
            expect(error.message).toContain(route.action);
          }
        });
      }
      it('no key, or a revoked one: 401 UNAUTHENTICATED', async () => {
        for (const token of [undefined, revoked, 'tsk_not-a-key-at-all']) {
          const response = await ask(route, token);
          expect(response.status).toBe(401);
          expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
        }
      });
    });
  }
});
