import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMPORT_MAX_BYTES } from '../api/export-import';
import { API_ROUTES, allowsMethod, matchApiRoute } from './api-routes';

const root = path.resolve(__dirname, '../..');

/** The API routes as the files in `app/api/` declare them: pattern → exported methods. */
function routeFiles(): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'route.ts') {
        const pattern = `/${path.relative(path.join(root, 'app'), dir)}`.replace(/\[(\w+)\]/g, ':$1');
        const source = fs.readFileSync(full, 'utf8');
        found[pattern] = [...source.matchAll(/export (?:async )?function (GET|POST|PUT|PATCH|DELETE)\b/g)]
          .map((m) => m[1]!)
          .sort();
      }
    }
  };
  walk(path.join(root, 'app', 'api'));
  return found;
}

describe('API_ROUTES', () => {
  it('lists exactly the route files of app/api, with their methods', () => {
    const listed = Object.fromEntries(API_ROUTES.map((r) => [r.pattern, [...r.methods].sort()]));
    expect(listed).toEqual(routeFiles());
  });
});

describe('matchApiRoute', () => {
  it('finds static routes before parameters, and ignores a trailing slash', () => {
    expect(matchApiRoute('/api/v1/traces/export')).toMatchObject({ route: { pattern: '/api/v1/traces/export' } });
    expect(matchApiRoute('/api/v1/traces/abc')).toMatchObject({ route: { pattern: '/api/v1/traces/:id' } });
    expect(matchApiRoute('/api/v1/traces/a%20b/cancel')).toMatchObject({
      route: { pattern: '/api/v1/traces/:id/cancel' },
    });
    expect(matchApiRoute('/api/v1/tools/')).toMatchObject({ route: { pattern: '/api/v1/tools' } });
  });

  it('says what is unknown and what is badly encoded', () => {
    expect(matchApiRoute('/api/v1/nope')).toEqual({ kind: 'not-found' });
    expect(matchApiRoute('/api/v1/traces//cancel')).toEqual({ kind: 'not-found' });
    expect(matchApiRoute('/api')).toEqual({ kind: 'not-found' });
    expect(matchApiRoute('/api/v1/traces/%E0%A4%A')).toEqual({ kind: 'bad-encoding' });
  });

  it('matches no route for dot segments or backslashes, which URL parsing would turn into another path', () => {
    for (const path of [
      '/api/v1/traces/./cancel',
      '/api/v1/traces/../cancel',
      '/api/v1/traces/%2e/cancel',
      '/api/v1/traces/%2E%2e/cancel',
      '/api/v1/traces/..',
      '/api/v1/traces/a\\b',
    ]) {
      expect(matchApiRoute(path), path).toEqual({ kind: 'not-found' });
    }
    expect(matchApiRoute('/api/v1/traces/...').kind).toBe('found');
    expect(matchApiRoute('/api/v1/traces/a.b').kind).toBe('found');
  });

  it("gives the import route the import's own body limit (the agent path bounds Next's bodies with it)", () => {
    const route = API_ROUTES.find((r) => r.pattern === '/api/v1/import');
    expect(route && 'maxBodyBytes' in route ? route.maxBodyBytes : null).toBe(IMPORT_MAX_BYTES);
  });

  it('allows HEAD on GET routes and OPTIONS everywhere', () => {
    const match = matchApiRoute('/api/v1/traces/x');
    if (match.kind !== 'found') throw new Error('not found');
    expect(match.allow).toBe('GET, DELETE, HEAD, OPTIONS');
    expect(allowsMethod(match, 'HEAD')).toBe(true);
    expect(allowsMethod(match, 'POST')).toBe(false);
  });
});
