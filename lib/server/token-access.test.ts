import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from './testing/built-server';

/**
 * `npm start` bound to an address other machines reach: without TOOLSCOPE_TOKEN it refuses to
 * start; with one, the agent path and Next's routes alike answer 401 without it and 200 with it.
 * Needs a current build (`node scripts/build.mjs`; `npm test` builds first); without one it is skipped.
 */
const built = await hasCurrentBuild('token-access.test');
const root = path.resolve(__dirname, '../..');
const TOKEN = 'test-token-0123456789abcdef';

describe.skipIf(!built)('the built server exposed beyond loopback', () => {
  it('refuses to start without TOOLSCOPE_TOKEN, saying how to set one, and opens nothing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-notoken-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, HOST: '0.0.0.0', PORT: '39871', TOOLSCOPE_DATA_DIR: dir };
      delete env.TOOLSCOPE_TOKEN;
      const child = spawn(process.execPath, ['scripts/start.mjs'], {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let log = '';
      child.stdout.on('data', (chunk) => (log += chunk));
      child.stderr.on('data', (chunk) => (log += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).not.toBe(0);
      expect(log).toContain('HOST is 0.0.0.0');
      expect(log).toContain('TOOLSCOPE_TOKEN is not set');
      expect(log).toContain('TOOLSCOPE_TOKEN=$(openssl rand -hex 32)');
      expect(log).not.toContain('ready on');
      // Nothing half-started: no database, no lock in the data folder.
      expect(fs.existsSync(path.join(dir, 'toolscope.db'))).toBe(false);
      expect(fs.readdirSync(dir)).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  describe('with TOOLSCOPE_TOKEN', () => {
    let server: BuiltServer;
    beforeAll(async () => {
      server = await startBuiltServer('toolscope-token-', undefined, { HOST: '0.0.0.0', TOOLSCOPE_TOKEN: TOKEN });
    }, 90_000);
    afterAll(() => server?.stop());

    const call = (headers: Record<string, string>) =>
      fetch(`${server.base}/api/v1/tool-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({
          session_id: 'token',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } },
          ],
        }),
      });

    it('the agent path (POST /api/v1/tool-calls): 401 without the token or with a wrong one, 200 with it', async () => {
      const without: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-wrong-token' }];
      for (const headers of without) {
        const refused = await call(headers);
        expect(refused.status).toBe(401);
        expect(await refused.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
      }
      const answer = await call({ authorization: `Bearer ${TOKEN}` });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { results: { output: { result: number } }[] }).results[0]?.output.result).toBe(
        42,
      );
    });

    it('the event stream: 401 without the token', async () => {
      const refused = await fetch(`${server.base}/api/v1/events`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    });

    it('a Next route (GET /api/v1/stats): 401 without the token, 200 with it', async () => {
      const refused = await fetch(`${server.base}/api/v1/stats`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
      const answer = await fetch(`${server.base}/api/v1/stats`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(answer.status).toBe(200);
    });

    it('pages go to the login form; the form sets an http-only SameSite=Strict cookie that opens them', async () => {
      const page = await fetch(`${server.base}/traces?q=x`, { redirect: 'manual' });
      expect(page.status).toBe(307);
      expect(page.headers.get('location')).toMatch(/\/login\?next=%2Ftraces%3Fq%3Dx$/);
      const form = await fetch(`${server.base}/login?next=%2F`);
      expect(form.status).toBe(200);
      expect(await form.text()).toContain('name="token"');

      const wrong = await fetch(`${server.base}/auth/login`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({ token: 'wrong-token-wrong-token', next: '/' }),
      });
      expect(wrong.status).toBe(303);
      expect(wrong.headers.get('location')).toContain('/login?error=wrong-key');
      expect(wrong.headers.get('set-cookie')).toBeNull();

      const login = await fetch(`${server.base}/auth/login`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({ token: TOKEN, next: '/tools' }),
      });
      expect(login.status).toBe(303);
      expect(new URL(login.headers.get('location') ?? '', server.base).pathname).toBe('/tools');
      const setCookie = login.headers.get('set-cookie') ?? '';
      expect(setCookie).toMatch(/^toolscope_session=/);
      expect(setCookie).toMatch(/HttpOnly/i);
      expect(setCookie).toMatch(/SameSite=Strict/i);
      expect(setCookie).not.toContain(TOKEN);
      const cookie = setCookie.split(';')[0] ?? '';
      expect((await fetch(`${server.base}/tools`, { headers: { cookie } })).status).toBe(200);
      expect((await fetch(`${server.base}/api/v1/stats`, { headers: { cookie } })).status).toBe(200);
    });
  });
});
