import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson } from '../http/testing/call-app';
import { closeServer, listenOnLoopback } from '../http/testing/listen';
import { testToolscopes } from '../server/testing/test-toolscopes';

/**
 * A redirect is judged by the permission rules again, as the call was: a redirect to a URL that
 * a deny or ask rule takes is not followed (the host allowlist alone let it through before).
 */
const toolscopes = testToolscopes('toolscope-redirect-rules-');
let server: http.Server;
let port: number;
const reached: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    reached.push(req.url ?? '');
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
    if (to) {
      res.writeHead(302, { location: to });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
  port = await listenOnLoopback(server);
});

afterAll(() => closeServer(server));

const call = (url: string) => ({
  tool_calls: [{ id: 'h1', type: 'function', function: { name: 'http_request', arguments: JSON.stringify({ url }) } }],
});

describe('http_request redirects under the permission rules', () => {
  it('refuses a redirect a deny or ask rule takes, naming it; follows one the rules allow', async () => {
    const ts = toolscopes.start(
      toolscopes.dataDir({
        http: { allow: ['127.0.0.1', `127.0.0.1:${port}`] },
        permissions: {
          deny: ['http_request(http://127.0.0.1:*/private/**)'],
          ask: ['http_request(http://127.0.0.1:*/review/**)'],
        },
      }),
    );
    const base = `http://127.0.0.1:${port}`;
    reached.length = 0;

    const denied = (await sendJson(ts, 'POST', '/api/v1/tool-calls', call(`${base}/go?to=/private/keys`))).json;
    expect(denied.results[0].success).toBe(false);
    expect(denied.results[0].error).toMatchObject({ code: 'REDIRECT_NOT_ALLOWED', kind: 'permission' });
    expect(denied.results[0].error.message).toContain('deny http_request(http://127.0.0.1:*/private/**)');

    const asked = (await sendJson(ts, 'POST', '/api/v1/tool-calls', call(`${base}/go?to=/review/x`))).json;
    expect(asked.results[0].error).toMatchObject({ code: 'REDIRECT_NOT_ALLOWED' });
    expect(asked.results[0].error.message).toContain('ask http_request(http://127.0.0.1:*/review/**)');
    expect(reached.some((url) => url.startsWith('/private') || url.startsWith('/review'))).toBe(false);

    const followed = (await sendJson(ts, 'POST', '/api/v1/tool-calls', call(`${base}/go?to=/public/page`))).json;
    expect(followed.results[0].success).toBe(true);
    expect(reached).toContain('/public/page');
  });
});
